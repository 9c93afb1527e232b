-- AlterTable
ALTER TABLE "persons" ADD COLUMN     "details" JSONB;
