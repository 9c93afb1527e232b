/**
 * A send-money journey on remittance-bff, one screen at a time:
 * quote → KYC → card (3-D Secure when the issuer asks) → confirm → live status → receipt.
 * Plain DOM (no framework): each screen is a function that renders into #app.
 */
import './style.css';
import {
  CheckCardDocument,
  CreatePersonDocument,
  CreateQuoteDocument,
  CreateTransferDocument,
  ResumeTransferDocument,
  TransferReceiptDocument,
  TransferUpdatedDocument,
  type AppTransferFragment,
  type PersonInput,
  type TransferStatus,
} from '../../../schema/app/generated';
import { ApiError, createApi, toApiError, type Api } from './client';
import { loadConfig, returnUrl } from './config';
import { loadJourney, newKey, saveJourney, type Journey, type Screen } from './state';

// The corridor this app sends on: USD by card to a PIX key in Brazil.
const CORRIDOR = { sourceCurrency: 'USD', destinationCurrency: 'BRL', destinationCountry: 'BR' } as const;

/** Statuses after which a transfer never changes (transferUpdated completes). */
const FINAL: ReadonlySet<TransferStatus> = new Set(['COMPLETED', 'DECLINED', 'EXPIRED', 'FAILED', 'REFUNDED', 'REJECTED', 'VOIDED']);

const STEPS: [Screen, string][] = [
  ['quote', 'Quote'],
  ['kyc', 'Your details'],
  ['card', 'Card'],
  ['confirm', 'Confirm'],
  ['status', 'Status'],
  ['receipt', 'Receipt'],
];

// ── tiny DOM helpers ──────────────────────────────────────────────────────────────────────────────────────────────

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined | ((e: Event) => void)>;

/** An element; text children are text nodes (never parsed as HTML). */
function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else if (typeof v === 'string') el.setAttribute(k, v);
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

const money = (m: { amount: string; currency: string } | null | undefined) => (m ? `${m.amount} ${m.currency}` : '—');
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
const deliveryWindow = (d: { earliest: string; latest: string } | null | undefined) =>
  d ? `${when(d.earliest)} – ${when(d.latest)}` : '—';

/** A definition list of [label, id, value] rows (the ids let tests and styles find each figure). */
function figures(id: string, rows: [string, string, string][]): HTMLElement {
  return h('dl', { id, class: 'figures' }, ...rows.flatMap(([label, rowId, value]) => [h('dt', {}, label), h('dd', { id: rowId }, value)]));
}

/** A labelled input. */
function field(name: string, label: string, attrs: Attrs = {}): HTMLElement {
  return h('label', {}, h('span', {}, label), h('input', { name, id: `f-${name}`, required: true, autocomplete: 'off', ...attrs }));
}

function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  new FormData(form).forEach((v, k) => (out[k] = String(v).trim()));
  return out;
}

// ── the app ───────────────────────────────────────────────────────────────────────────────────────────────────────

const root = document.getElementById('app')!;
const config = loadConfig();
let journey: Journey = loadJourney();
let api: Api;
/** The live transferUpdated subscription, if any. */
let live: { unsubscribe(): void } | null = null;

function save(patch: Partial<Journey>): void {
  journey = { ...journey, ...patch };
  saveJourney(journey);
}

function go(screen: Screen): void {
  live?.unsubscribe();
  live = null;
  save({ screen });
  render();
}

/** The error box: the customer's `message`, the `extensions.code` (and per-field messages). */
function errorBox(e: unknown): HTMLElement {
  const err = e instanceof ApiError ? e : new ApiError('Something went wrong. Try again.', 'CLIENT_ERROR');
  if (!(e instanceof ApiError)) console.error(e);
  return h(
    'div',
    { class: 'error', role: 'alert', id: 'error', 'data-code': err.code, 'data-reason': err.reason ?? undefined },
    h('p', {}, h('span', { id: 'error-message' }, err.message), ' ', h('code', { id: 'error-code' }, err.code)),
    err.fields.length ? h('ul', {}, ...err.fields.map((f) => h('li', { 'data-path': f.path }, f.message))) : null,
  );
}

/** Runs `action` for a form's submit button: disabled while it runs, the error shown in `slot`. */
async function busy(button: HTMLButtonElement, slot: HTMLElement, action: () => Promise<void>): Promise<void> {
  button.disabled = true;
  slot.replaceChildren();
  try {
    await action();
  } catch (e) {
    slot.replaceChildren(errorBox(e));
  } finally {
    button.disabled = false;
  }
}

function page(title: string, ...body: Child[]): void {
  const current = STEPS.findIndex(([s]) => s === journey.screen);
  root.replaceChildren(
    h(
      'header',
      {},
      h('h1', {}, 'Send money'),
      h(
        'ol',
        { class: 'steps' },
        ...STEPS.map(([, label], i) => h('li', { class: i === current ? 'current' : i < current ? 'done' : '' }, label)),
      ),
    ),
    h('section', { id: `screen-${journey.screen}` }, h('h2', {}, title), ...body),
  );
}

// ── 1. quote ──────────────────────────────────────────────────────────────────────────────────────────────────────

function quoteScreen(): void {
  const errors = h('div');
  const result = h('div', { id: 'quote-result' });
  const showQuote = () => {
    const q = journey.quote;
    if (!q) return result.replaceChildren();
    result.replaceChildren(
      figures('quote', [
        ['You send', 'quote-source', money(q.source)],
        ['Fee', 'quote-fee', money(q.fee)],
        ['Total charged to your card', 'quote-total', money(q.total)],
        [
          'Exchange rate',
          'quote-rate',
          `1 ${q.source?.currency ?? CORRIDOR.sourceCurrency} = ${q.rate} ${q.destination?.currency ?? CORRIDOR.destinationCurrency}`,
        ],
        ['Recipient gets', 'quote-destination', money(q.destination)],
        ['Arrives', 'quote-delivery', deliveryWindow(q.deliveryEstimate)],
        ['Price valid until', 'quote-expires', when(q.expiresAt)],
      ]),
      h('button', { type: 'button', id: 'quote-continue', onclick: () => go('kyc') }, 'Continue'),
    );
  };
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        const { amount } = formValues(form as HTMLFormElement);
        void busy(submit, errors, async () => {
          save({ quote: undefined });
          showQuote();
          const { createQuote } = await api.mutate(CreateQuoteDocument, {
            input: { ...CORRIDOR, paymentMethod: 'CARD', destinationType: 'PIX', sourceAmount: amount },
          });
          save({ quote: createQuote });
          showQuote();
        });
      },
    },
    field('amount', `You send (${CORRIDOR.sourceCurrency})`, { inputmode: 'decimal', value: journey.quote?.source?.amount ?? '100.00' }),
    h('p', { class: 'hint' }, `To a PIX key in Brazil (${CORRIDOR.destinationCurrency}), paid by card.`),
  );
  const submit = h('button', { type: 'submit', id: 'get-quote' }, 'Get quote') as HTMLButtonElement;
  form.append(submit);
  page('How much are you sending?', form, errors, result);
  showQuote();
}

// ── 2. KYC ────────────────────────────────────────────────────────────────────────────────────────────────────────

function kycScreen(): void {
  const errors = h('div');
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        const v = formValues(form as HTMLFormElement);
        const input: PersonInput = {
          type: 'INDIVIDUAL',
          firstName: v.firstName,
          lastName: v.lastName,
          email: v.email,
          phoneNumber: v.phoneNumber,
          identificationType: v.identificationType,
          identification: v.identification,
          address: {
            line1: v.line1!,
            city: v.city!,
            region: v.region!,
            regionCode: v.regionCode || null,
            postalCode: v.postalCode!,
            countryCode: v.countryCode!.toUpperCase(),
          },
        };
        void busy(submit, errors, async () => {
          const { createPerson } = await api.mutate(CreatePersonDocument, { input });
          if (createPerson.status !== 'APPROVED' || !createPerson.id) {
            // KYC said no: the customer's message, nothing stored
            errors.replaceChildren(
              h('p', { class: 'error', id: 'kyc-message', role: 'alert' }, createPerson.message ?? 'We could not verify you.'),
            );
            return;
          }
          save({ person: createPerson, senderName: `${v.firstName} ${v.lastName}` });
          go('card');
        });
      },
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'You'),
      field('firstName', 'First name'),
      field('lastName', 'Last name'),
      field('email', 'E-mail', { type: 'email' }),
      field('phoneNumber', 'Phone (+1…)', { type: 'tel', placeholder: '+14155550100' }),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Identity document'),
      h(
        'label',
        {},
        h('span', {}, 'Type'),
        h(
          'select',
          { name: 'identificationType', id: 'f-identificationType' },
          ...['SSN', 'PASSPORT', 'DRIVER_LICENSE', 'NATIONAL_ID', 'TAX_ID'].map((t) => h('option', { value: t }, t)),
        ),
      ),
      field('identification', 'Number', { placeholder: '123-45-6789' }),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Address'),
      field('line1', 'Street'),
      field('city', 'City'),
      field('region', 'State'),
      field('regionCode', 'State code', { required: false, placeholder: 'CA' }),
      field('postalCode', 'ZIP code'),
      field('countryCode', 'Country', { value: 'US', maxlength: '2' }),
    ),
  );
  const submit = h('button', { type: 'submit', id: 'kyc-submit' }, 'Verify me') as HTMLButtonElement;
  form.append(submit);
  page('Who is sending?', h('p', { class: 'hint' }, 'We verify every sender once (KYC).'), form, errors);
}

// ── 3. card ───────────────────────────────────────────────────────────────────────────────────────────────────────

async function checkCard(token: string): Promise<void> {
  const { checkCard: check } = await api.mutate(CheckCardDocument, {
    // the issuer's 3-D Secure page sends the browser back here (the service checks the host)
    input: { cardToken: token, personId: journey.person!.id!, threeDSReturnUrl: returnUrl({ threeds: 'card' }) },
  });
  save({ card: { token, check } });
}

function cardScreen(opts: { back?: boolean } = {}): void {
  const errors = h('div');
  const result = h('div', { id: 'card-result' });
  const showCheck = () => {
    const c = journey.card?.check;
    if (!c) return result.replaceChildren();
    const ending = c.lastFour ? `Card ending ${c.lastFour}` : 'Your card';
    if (c.status === 'APPROVED')
      result.replaceChildren(
        h('p', { class: 'ok', id: 'card-status', 'data-status': c.status }, `${ending} is approved.`),
        h('button', { type: 'button', id: 'card-continue', onclick: () => go('confirm') }, 'Continue'),
      );
    else if (c.status === 'CHALLENGE')
      // 3-D Secure: now (the issuer's page, then back here: the same check again approves), or when paying (the
      // transfer waits in ACTION_REQUIRED for the same page, then resumeTransfer: see the status screen)
      result.replaceChildren(
        h(
          'p',
          { id: 'card-status', 'data-status': c.status },
          `${ending}: your bank wants to confirm it is you (3-D Secure), now (you come back here) or when you pay.`,
        ),
        h(
          'button',
          { type: 'button', id: 'card-authenticate', onclick: () => window.location.assign(c.redirectUrl!) },
          'Confirm with your bank',
        ),
        ' ',
        h('button', { type: 'button', id: 'card-later', class: 'secondary', onclick: () => go('confirm') }, 'Confirm when I pay'),
      );
    else
      result.replaceChildren(
        h(
          'p',
          { class: 'error', id: 'card-status', 'data-status': c.status },
          `${ending} cannot pay for this transfer: ${c.reasons.join(', ')}. Try another card.`,
        ),
      );
  };
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        const { cardToken } = formValues(form as HTMLFormElement);
        void busy(submit, errors, async () => {
          save({ card: undefined });
          showCheck();
          await checkCard(cardToken!);
          showCheck();
        });
      },
    },
    field('cardToken', 'Card (token from your card tokenizer)', {
      value: journey.card?.token ?? '',
      placeholder: 'aaaaaaaa-bbbb-4ccc-8ddd-000000001234',
      spellcheck: 'false',
    }),
    h('p', { class: 'hint' }, 'Sandbox: a UUID ending 1234 is approved; ending 0002 asks for 3-D Secure.'),
  );
  const submit = h('button', { type: 'submit', id: 'check-card' }, 'Check card') as HTMLButtonElement;
  form.append(submit);
  page('How are you paying?', h('p', { id: 'card-sender' }, `Sender: ${journey.senderName ?? '—'} (verified)`), form, errors, result);
  showCheck();
  if (opts.back && journey.card) {
    // back from the issuer's page: the same check again tells whether the challenge was completed
    void busy(submit, errors, async () => {
      await checkCard(journey.card!.token);
      showCheck();
    });
  }
}

// ── 4. confirm ────────────────────────────────────────────────────────────────────────────────────────────────────

function confirmScreen(): void {
  const q = journey.quote!;
  if (!journey.transferKey) save({ transferKey: newKey() }); // one intent, one key: a retry sends the same one
  const errors = h('div');
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault();
        const v = formValues(form as HTMLFormElement);
        void busy(submit, errors, async () => {
          const { createTransfer } = await api.mutate(CreateTransferDocument, {
            input: {
              idempotencyKey: journey.transferKey!,
              quoteId: q.id,
              personId: journey.person!.id!,
              funding: { type: 'CARD', cardToken: journey.card!.token },
              recipient: {
                customer: { firstName: v.recipientFirstName!, lastName: v.recipientLastName! },
                address: {
                  line1: v.recipientLine1!,
                  city: v.recipientCity!,
                  region: v.recipientRegion!,
                  regionCode: v.recipientRegionCode || null,
                  postalCode: v.recipientPostalCode!,
                  countryCode: CORRIDOR.destinationCountry,
                },
                destination: { type: 'PIX', pixKeyType: 'EMAIL', pixKey: v.pixKey! },
              },
              // if the issuer asks for 3-D Secure when paying, its page sends the browser back to the status screen
              threeDSReturnUrl: returnUrl({ threeds: 'transfer' }),
            },
          });
          save({ transferId: createTransfer.id, transfer: undefined, statuses: [] });
          go('status');
        }).then(() => {
          // a quote lives a few minutes: past it, a new quote (and a new intent: a new key)
          if (errors.querySelector('[data-code="QUOTE_EXPIRED"]'))
            errors.append(
              h(
                'button',
                { type: 'button', id: 'new-quote', onclick: () => (save({ quote: undefined, transferKey: undefined }), go('quote')) },
                'Get a new quote',
              ),
            );
        });
      },
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Recipient in Brazil'),
      field('recipientFirstName', 'First name'),
      field('recipientLastName', 'Last name'),
      field('pixKey', 'PIX key (e-mail)', { type: 'email' }),
      field('recipientLine1', 'Street'),
      field('recipientCity', 'City'),
      field('recipientRegion', 'State'),
      field('recipientRegionCode', 'State code', { required: false, placeholder: 'SP' }),
      field('recipientPostalCode', 'CEP'),
    ),
  );
  const submit = h('button', { type: 'submit', id: 'send' }, `Send ${money(q.total)}`) as HTMLButtonElement;
  form.append(submit);
  page(
    'Check and send',
    figures('confirm', [
      ['You send', 'confirm-source', money(q.source)],
      ['Fee', 'confirm-fee', money(q.fee)],
      ['Total charged', 'confirm-total', money(q.total)],
      ['Recipient gets', 'confirm-destination', money(q.destination)],
      [
        'Paid with',
        'confirm-card',
        `Card ending ${journey.card?.check.lastFour ?? '—'}${journey.card?.check.status === 'CHALLENGE' ? ' (your bank will ask you to confirm)' : ''}`,
      ],
      ['From', 'confirm-sender', journey.senderName ?? '—'],
    ]),
    form,
    errors,
  );
}

// ── 5. live status ────────────────────────────────────────────────────────────────────────────────────────────────

const STATUS_TEXT: Partial<Record<TransferStatus, string>> = {
  PENDING: 'Checking your card and the transfer',
  ACTION_REQUIRED: 'Your bank wants you to confirm the payment',
  AUTHORIZED: 'Payment authorized',
  CAPTURED: 'Payment taken',
  PAYOUT_PENDING: 'Paying the recipient',
  COMPLETED: 'Delivered',
  REFUND_PENDING: 'Your money is on its way back',
};

function statusScreen(opts: { back?: boolean } = {}): void {
  const transferId = journey.transferId!;
  const errors = h('div');
  const current = h('p', { id: 'status', class: 'status' }, '…');
  const detail = h('div', { id: 'status-detail' });
  const timeline = h('ol', { id: 'timeline' });
  page('Your transfer', current, detail, h('h3', {}, 'So far'), timeline, errors);

  const show = (t: AppTransferFragment | null) => {
    const statuses = journey.statuses ?? [];
    timeline.replaceChildren(...statuses.map((s) => h('li', { 'data-status': s }, STATUS_TEXT[s] ?? s)));
    const status = statuses.at(-1);
    if (!status) return;
    current.textContent = status;
    current.dataset.status = status;
    detail.replaceChildren();
    if (t?.nextAction?.type === 'THREE_DS_CHALLENGE' && t.nextAction.redirectUrl) {
      const url = t.nextAction.redirectUrl;
      detail.append(
        h('button', { type: 'button', id: 'transfer-authenticate', onclick: () => window.location.assign(url) }, 'Confirm with your bank'),
      );
    }
    if (t?.failure) detail.append(h('p', { class: 'error', id: 'failure', 'data-code': t.failure.code }, t.failure.message));
    if (FINAL.has(status)) detail.append(h('button', { type: 'button', id: 'to-receipt', onclick: () => go('receipt') }, 'View receipt'));
  };
  show(journey.transfer ?? null);

  const follow = () => {
    // the transfer now, then one message per version; versions already shown are skipped (a reconnect sends
    // them again), and the stream completes once the transfer is final
    const afterVersion = () => journey.transfer?.version ?? 0;
    live = api.client.subscription(TransferUpdatedDocument, { transferId, afterVersion: afterVersion() || null }).subscribe((r) => {
      if (r.error) {
        errors.replaceChildren(errorBox(toApiError(r.error)));
        return;
      }
      const t = r.data?.transferUpdated;
      if (!t || t.version <= afterVersion()) return;
      const statuses = journey.statuses ?? [];
      save({ transfer: t, statuses: statuses.at(-1) === t.status ? statuses : [...statuses, t.status] });
      show(t);
    });
  };

  if (opts.back) {
    // back from the issuer's page: resume the transfer (a new key per attempt), then follow it again
    void (async () => {
      try {
        await api.mutate(ResumeTransferDocument, { input: { transferId, idempotencyKey: newKey() } });
      } catch (e) {
        // e.g. INVALID_STATE with reason CHALLENGE_NOT_COMPLETED: nothing changed, the button stays
        errors.replaceChildren(errorBox(e));
        if (e instanceof ApiError && e.reason === 'CHALLENGE_NOT_COMPLETED')
          errors.append(
            h('p', { class: 'hint', id: 'challenge-hint' }, 'Your bank has not confirmed the payment yet: use “Confirm with your bank”.'),
          );
      }
      follow();
    })();
  } else follow();
}

// ── 6. receipt ────────────────────────────────────────────────────────────────────────────────────────────────────

function receiptScreen(): void {
  const errors = h('div');
  const body = h('div', { id: 'receipt' }, 'Loading…');
  page(
    'Receipt',
    body,
    errors,
    h(
      'button',
      {
        type: 'button',
        id: 'restart',
        onclick: () => {
          journey = { screen: 'quote' };
          go('quote');
        },
      },
      'Send another transfer',
    ),
  );
  api
    .query(TransferReceiptDocument, { id: journey.transferId! })
    .then(({ transfer }) => {
      if (!transfer) throw new ApiError('This transfer was not found.', 'NOT_FOUND');
      const r = transfer.receipt;
      const s = r.support;
      body.replaceChildren(
        h(
          'p',
          { class: 'reference' },
          'Reference ',
          h('strong', { id: 'receipt-reference' }, r.reference),
          ' — quote it when you contact us.',
        ),
        figures('receipt-figures', [
          ['Status', 'receipt-status', r.status],
          ['Sent on', 'receipt-created', when(r.createdAt)],
          ['From', 'receipt-sender', r.sender.name],
          ['To', 'receipt-recipient', `${r.recipient.name} (${r.recipient.destinationType} ${r.recipient.destination})`],
          ['Paid with', 'receipt-funding', r.funding.lastFour ? `${r.funding.type} ending ${r.funding.lastFour}` : r.funding.type],
          ['You sent', 'receipt-send', money(r.sendAmount)],
          ['Fee', 'receipt-fee', money(r.fee)],
          ['Total charged', 'receipt-total', money(r.total)],
          ['Exchange rate', 'receipt-rate', `1 ${r.sendAmount.currency} = ${r.rate} ${r.receiveAmount.currency}`],
          ['Recipient gets', 'receipt-receive', money(r.receiveAmount)],
          ['Arrives', 'receipt-delivery', deliveryWindow(r.deliveryEstimate)],
          ['Cancellable until', 'receipt-cancellable', r.cancellableUntil ? when(r.cancellableUntil) : 'No longer cancellable'],
          ['Refunded', 'receipt-refunded', money(r.refundedAmount)],
        ]),
        h(
          'p',
          { id: 'receipt-support', class: 'hint' },
          `Help: ${s.name}`,
          s.email ? ` · ${s.email}` : null,
          s.phone ? ` · ${s.phone}` : null,
          s.url ? ' · ' : null,
          s.url ? h('a', { href: s.url, rel: 'noopener noreferrer', target: '_blank' }, s.url) : null,
        ),
      );
    })
    .catch((e: unknown) => {
      body.replaceChildren();
      errors.replaceChildren(errorBox(e));
    });
}

// ── start ─────────────────────────────────────────────────────────────────────────────────────────────────────────

function render(opts: { back?: boolean } = {}): void {
  switch (journey.screen) {
    case 'quote':
      return quoteScreen();
    case 'kyc':
      return kycScreen();
    case 'card':
      return cardScreen(opts);
    case 'confirm':
      return confirmScreen();
    case 'status':
      return statusScreen(opts);
    case 'receipt':
      return receiptScreen();
  }
}

if (!config.token) {
  root.replaceChildren(
    h('h1', {}, 'Send money'),
    h(
      'p',
      { class: 'error', id: 'no-token' },
      'No token: open this page with ?token=<JWT> (e.g. from `npm run token -- --sub alice --role customer` in the service).',
    ),
  );
} else {
  api = createApi(config);
  // back from a 3-D Secure page: ?threeds=card (the card check) or ?threeds=transfer (a transfer's payment)
  const url = new URL(window.location.href);
  const threeds = url.searchParams.get('threeds');
  if (threeds) {
    url.searchParams.delete('threeds');
    window.history.replaceState(null, '', url);
  }
  if (threeds === 'card' && journey.card) journey.screen = 'card';
  if (threeds === 'transfer' && journey.transferId) journey.screen = 'status';
  render({ back: threeds === 'card' || threeds === 'transfer' });
}
