/**
 * Operability: the request id on every log line written for a request (HTTP and graphql-ws), and
 * OpenTelemetry spans (operation → root field → upstream attempts and SQL statements) in one trace, with no
 * PII or secrets in span attributes. Tracing is exercised with an in-memory exporter; OTLP export against a
 * local collector stand-in; "off" means no provider registered at all.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing } from '../../src/shared/tracing';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';

const PERSON = {
  type: 'INDIVIDUAL',
  firstName: 'Janeobs',
  lastName: 'Doeobs',
  identificationType: 'SSN',
  identification: '987-65-4321',
  email: 'janeobs@example.com',
  phoneNumber: '+14155550177',
  address: { line1: '77 Secret Lane', city: 'Springfield', region: 'California', regionCode: 'CA', postalCode: '94105', countryCode: 'US' },
};
const PII = ['Janeobs', 'Doeobs', '987-65-4321', '77 Secret Lane', '+14155550177', 'janeobs@example.com'];

let t: TestApp;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  // debug: upstream request/response lines are the ones most likely to escape a request's context
  t = await startTestApp(
    { LOG_LEVEL: 'debug', RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000', RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000' },
    { traceSpanProcessors: [new SimpleSpanProcessor(exporter)] },
  );
}, 90_000);
afterAll(() => t?.close());

const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

/** Log lines written while `run` was in flight. */
async function linesDuring(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  await new Promise((r) => setTimeout(r, 50));
  const from = t.logs.length;
  await run();
  await new Promise((r) => setTimeout(r, 50));
  return parsed(t.logs.slice(from));
}

describe('request id in every log line', () => {
  it('HTTP: every line written during one mutation (resolver, upstream debug lines, SQL-backed service) carries its request id and caller', async () => {
    const token = await t.token('obs-http-user', 'customer');
    const requestId = 'obs-request-0000000001';
    const lines = await linesDuring(async () => {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': requestId },
        body: JSON.stringify({
          query: 'mutation($input: PersonInput!) { createPerson(input: $input) { id status } }',
          variables: { input: PERSON },
        }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).data.createPerson.status).toBe('APPROVED');
    });
    const upstreamLines = lines.filter((l) => l.msg === 'upstream request' || l.msg === 'upstream response');
    expect(upstreamLines.length).toBeGreaterThanOrEqual(2); // at least the person call (plus the token call)
    const stray = lines.filter((l) => l.requestId !== requestId || l.userId !== 'obs-http-user');
    expect(stray).toEqual([]);
  });

  it('HTTP: an error response and the lines of that request share the id; a request without x-request-id gets a generated one', async () => {
    const lines = await linesDuring(async () => {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await t.token('obs-2', 'customer')}` },
        body: JSON.stringify({ query: '{ wallet(id: "00000000-0000-4000-8000-000000000000") { id } }' }),
      });
      const body = (await res.json()) as any;
      const id = res.headers.get('x-request-id');
      expect(body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', requestId: id });
    });
    for (const l of lines) expect(l.requestId).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
  });

  it("graphql-ws: every line written during one operation carries that operation's request id and the caller", async () => {
    const token = await t.token('obs-ws-user', 'customer');
    const { client } = wsClient(t.wsUrl, token);
    try {
      // connect first, so the connection's own lines (if any) are not counted
      const warm = collect<any>(client, '{ viewer { id } }');
      await warm.next(1);
      const lines = await linesDuring(async () => {
        const sub = collect<any>(client, 'mutation($input: PersonInput!) { createPerson(input: $input) { status } }', { input: PERSON });
        await sub.next(1, 10_000);
        expect(sub.results[0]!.data.createPerson.status).toBe('APPROVED');
      });
      expect(lines.filter((l) => l.msg === 'upstream request').length).toBeGreaterThanOrEqual(1);
      const ids = new Set(lines.map((l) => l.requestId));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
      expect(lines.every((l) => l.userId === 'obs-ws-user')).toBe(true);
    } finally {
      await client.dispose();
    }
  });
});

describe('tracing', () => {
  const attrValues = (spans: ReadableSpan[]) =>
    spans.flatMap((s) => [
      s.name,
      ...Object.entries(s.attributes).flatMap(([k, v]) => [k, String(v)]),
      ...s.events.flatMap((e) => [e.name, JSON.stringify(e.attributes ?? {})]),
    ]);

  it('one GraphQL operation → operation, root-field, upstream and database spans in one trace; no PII in attributes', async () => {
    exporter.reset();
    const token = await t.token('obs-trace-user', 'customer');
    const r = await gql<any>(t.url, 'mutation CreateTracedPerson($input: PersonInput!) { createPerson(input: $input) { id status } }', {
      token,
      variables: { input: PERSON },
      headers: { 'x-request-id': 'obs-trace-000000001' },
    });
    expect(r.body.data.createPerson.status).toBe('APPROVED');
    await new Promise((res) => setTimeout(res, 50));
    const spans = exporter.getFinishedSpans();
    const op = spans.find((s) => s.name === 'mutation CreateTracedPerson');
    expect(op).toBeDefined();
    expect(op!.attributes).toMatchObject({
      'graphql.operation.type': 'mutation',
      'graphql.operation.name': 'CreateTracedPerson',
      'request.id': 'obs-trace-000000001',
    });
    const traceId = op!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));
    const ancestors = (s: ReadableSpan): string[] => {
      const out: string[] = [];
      for (let p = s.parentSpanContext?.spanId; p && byId.has(p); p = byId.get(p)!.parentSpanContext?.spanId) out.push(byId.get(p)!.name);
      return out;
    };

    const field = inTrace.find((s) => s.name === 'Mutation.createPerson');
    expect(field && ancestors(field)).toEqual(['mutation CreateTracedPerson']);
    const upstream = inTrace.filter((s) => s.attributes['upstream.service'] === 'gateway');
    expect(upstream.map((s) => s.attributes['upstream.operation'])).toContain('createPerson');
    for (const s of upstream) {
      expect(ancestors(s)).toContain('Mutation.createPerson');
      expect(s.attributes['http.response.status_code']).toEqual(expect.any(Number));
    }
    const db = inTrace.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(db.length).toBeGreaterThanOrEqual(1);
    expect(db.some((s) => s.attributes['db.operation.name'] === 'INSERT')).toBe(true);
    for (const s of db) expect(ancestors(s)).toContain('Mutation.createPerson');

    const values = attrValues(inTrace).join('\n');
    for (const secret of [...PII, token, 'sandbox-secret', 'sandbox-api-key']) expect(values).not.toContain(secret);
  });

  it("a query's upstream call is in the operation's trace", async () => {
    exporter.reset();
    const token = await t.token('obs-trace-2', 'customer');
    await gql<any>(t.url, '{ banks(countryCode: "BR", first: 1) { totalCount } }', { token });
    const spans = exporter.getFinishedSpans();
    const call = spans.find(
      (s) =>
        s.attributes['upstream.operation'] === 'listBanks' || (s.attributes['upstream.service'] === 'gateway' && s.name.includes('ank')),
    );
    expect(call).toBeDefined();
    expect(spans.find((s) => s.name === 'query banks')!.spanContext().traceId).toBe(call!.spanContext().traceId);
  });

  it('an operation the edge refuses before it runs is still named and typed on its span', async () => {
    exporter.reset();
    // a subscription over HTTP: refused (400 SUBSCRIPTION_OVER_HTTP) once the operation is resolved, by the plugin
    // before tracing's in Apollo's list — tracing's own hook for that moment must still run
    const r = await gql<any>(t.url, 'subscription RefusedOverHttp($id: ID!) { transferUpdated(transferId: $id) { id } }', {
      token: await t.token('obs-trace-refused', 'customer'),
      variables: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(r.body.errors![0]!.extensions!.code).toBe('SUBSCRIPTION_OVER_HTTP');
    const op = exporter.getFinishedSpans().find((s) => s.name === 'subscription RefusedOverHttp');
    expect(op?.attributes).toMatchObject({ 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'RefusedOverHttp' });
  });

  it('graphql-ws operations are traced too', async () => {
    exporter.reset();
    const { client } = wsClient(t.wsUrl, await t.token('obs-ws-trace', 'customer'));
    try {
      const sub = collect<any>(client, 'query WsViewer { viewer { id } }');
      await sub.next(1);
    } finally {
      await client.dispose();
    }
    const op = exporter.getFinishedSpans().find((s) => s.name === 'query WsViewer');
    expect(op?.attributes).toMatchObject({ 'graphql.transport': 'graphql-ws', 'graphql.operation.type': 'query' });
    const field = exporter.getFinishedSpans().find((s) => s.name === 'Query.viewer');
    expect(field?.parentSpanContext?.spanId).toBe(op!.spanContext().spanId);
  });

  it('log lines written inside a traced operation carry its trace id', async () => {
    exporter.reset();
    const from = t.logs.length;
    await gql<any>(t.url, 'mutation($input: PersonInput!) { createPerson(input: $input) { id } }', {
      token: await t.token('obs-3', 'customer'),
      variables: { input: PERSON },
    });
    const lines = parsed(t.logs.slice(from)).filter((l) => l.msg === 'upstream response');
    expect(lines.length).toBeGreaterThan(0);
    const traceIds = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().traceId));
    for (const l of lines) expect(traceIds.has(l.traceId as string)).toBe(true);
  });
});

describe('tracing configuration', () => {
  it('off without OTEL_EXPORTER_OTLP_ENDPOINT: nothing started', () => {
    expect(startTracing({ otlpEndpoint: null, serviceName: 'x' })).toBeNull();
    expect(startTracing({ otlpEndpoint: null, serviceName: 'x', spanProcessors: [] })).toBeNull();
  });

  it('OTLP/HTTP export to <endpoint>/v1/traces when configured', async () => {
    const received: { url: string; body: string }[] = [];
    const collector = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      const port = (collector.address() as AddressInfo).port;
      // In a plain Node process (the OTLP exporter loads its HTTP agent with a dynamic import, which Jest's VM cannot run)
      const script = `
        const { startTracing, tracer, tracingActive } = require('./src/shared/tracing.ts');
        const { trace } = require('@opentelemetry/api');
        const tracing = startTracing({ otlpEndpoint: process.env.OTLP + '/', serviceName: 'rbff-otlp-test' });
        if (!tracingActive()) throw new Error('not active');
        tracer().startSpan('otlp-probe').end();
        tracing.shutdown().then(() => {
          if (tracingActive() || trace.getTracer('x').startSpan('y').isRecording()) throw new Error('still registered');
          console.log('flushed');
        });`;
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['-r', './test/bench/register.cjs', '-e', script],
          { cwd: join(__dirname, '..', '..'), env: { ...process.env, OTLP: `http://127.0.0.1:${port}` }, timeout: 60_000 },
          (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
        ),
      );
      expect(out.trim()).toBe('flushed');
      expect(received.map((r) => r.url)).toEqual(['/v1/traces']);
      expect(received[0]!.body).toContain('otlp-probe');
      expect(received[0]!.body).toContain('rbff-otlp-test');
    } finally {
      collector.close();
    }
  });
});
