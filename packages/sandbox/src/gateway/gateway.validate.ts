/** Small field validators shared by the gateway areas. They add to an Issues list rather than throw. */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { Issues, invalidRequest } from './gateway.errors';

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request body as an object, or 400 INVALID_REQUEST. */
export function bodyObject(body: unknown): Json {
  if (!isRecord(body)) throw invalidRequest('request body must be a JSON object');
  return body;
}

export function obj(value: unknown): Json {
  return isRecord(value) ? value : {};
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const E164 = /^\+[1-9]\d{1,14}$/;

export const isEmail = (v: string): boolean => EMAIL.test(v) && v.length <= 254;
export const isUuid = (v: string): boolean => UUID.test(v);
export const isE164 = (v: string): boolean => E164.test(v);
export const isIpAddress = (v: string): boolean => isIP(v) !== 0;

export interface StringRule {
  max?: number;
  min?: number;
  pattern?: RegExp;
  patternIssue?: string;
  oneOf?: readonly string[];
  check?: (v: string) => string | null; // returns an issue or null
}

/** A required non-empty string at `path`; adds an issue and returns undefined when absent or wrong. */
export function reqString(issues: Issues, parent: Json, key: string, path: string, rule: StringRule = {}): string | undefined {
  const v = parent[key];
  if (v === undefined || v === null || v === '') {
    issues.add(path, 'required');
    return undefined;
  }
  return checkString(issues, v, path, rule);
}

/** An optional string: undefined when absent, checked when present. */
export function optString(issues: Issues, parent: Json, key: string, path: string, rule: StringRule = {}): string | undefined {
  const v = parent[key];
  if (v === undefined || v === null) return undefined;
  return checkString(issues, v, path, rule);
}

function checkString(issues: Issues, v: unknown, path: string, rule: StringRule): string | undefined {
  if (typeof v !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (rule.min !== undefined && v.length < rule.min) {
    issues.add(path, `must be at least ${rule.min} characters`);
    return undefined;
  }
  if (rule.max !== undefined && v.length > rule.max) {
    issues.add(path, `must be at most ${rule.max} characters`);
    return undefined;
  }
  if (rule.oneOf && !rule.oneOf.includes(v)) {
    issues.add(path, `must be one of ${rule.oneOf.join(', ')}`);
    return undefined;
  }
  if (rule.pattern && !rule.pattern.test(v)) {
    issues.add(path, rule.patternIssue ?? 'has an invalid format');
    return undefined;
  }
  if (rule.check) {
    const problem = rule.check(v);
    if (problem) {
      issues.add(path, problem);
      return undefined;
    }
  }
  return v;
}

/** A required object at `path`; returns {} (and adds an issue) when absent. */
export function reqObject(issues: Issues, parent: Json, key: string, path: string): Json | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    issues.add(path, 'required');
    return undefined;
  }
  if (!isRecord(v)) {
    issues.add(path, 'must be an object');
    return undefined;
  }
  return v;
}

export function optObject(issues: Issues, parent: Json, key: string, path: string): Json | undefined {
  const v = parent[key];
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) {
    issues.add(path, 'must be an object');
    return undefined;
  }
  return v;
}

export function optBoolean(issues: Issues, parent: Json, key: string, path: string): boolean | undefined {
  const v = parent[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') {
    issues.add(path, 'must be a boolean');
    return undefined;
  }
  return v;
}

/** Deterministic JSON (sorted keys), for comparing request bodies under one idempotency key. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function bodyHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** A stable non-negative integer from a string, for deterministic simulated data. */
export function hashInt(value: string): number {
  return createHash('sha256').update(value).digest().readUInt32BE(0);
}

/** Digits derived from a string (deterministic), e.g. for masked account numbers. */
export function hashDigits(value: string, count: number): string {
  const hex = createHash('sha256').update(value).digest('hex');
  let out = '';
  for (let i = 0; out.length < count; i += 2) out += (parseInt(hex.slice(i % 60, (i % 60) + 2), 16) % 10).toString();
  return out;
}

/** "2026-01-31 14:05:09" — the gateway's `created` format (date and time separated by a space, UTC). */
export function gatewayTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** ABA routing number checksum (3-7-1 weights). */
export function isAbaRoutingNumber(v: string): boolean {
  if (!/^\d{9}$/.test(v)) return false;
  const d = v.split('').map(Number);
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8]);
  return sum % 10 === 0;
}

/** A valid ABA routing number from an 8-digit prefix (adds the check digit). */
export function abaWithCheckDigit(prefix8: string): string {
  const d = prefix8.split('').map(Number);
  const partial = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5]);
  return prefix8 + ((10 - (partial % 10)) % 10).toString();
}

/** Masks all but the last `visible` characters. */
export function mask(value: string, visible = 4): string {
  if (value.length <= visible) return value;
  return '*'.repeat(value.length - visible) + value.slice(-visible);
}
