-- The holder (a digest) of the owner's latest card check when the gateway APPROVED it without 3-D Secure: a card
-- transfer created soon after, for the same holder, reuses that check instead of checking the card again.
ALTER TABLE "funding_credentials" ADD COLUMN "approved_holder" TEXT;
