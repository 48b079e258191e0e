/**
 * Seeded fault injection: latency with jitter, 500s and dropped connections. One small PRNG
 * (mulberry32) drives every decision, so a run with the same `--seed` and the same sequence of
 * requests meets the same faults.
 */
import { SERVER_ERROR_HTML } from './errors.js';

/** mulberry32: a 32-bit seeded PRNG, uniform in [0, 1). Small, fast and good enough for faults. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The fault settings; every one of them can be switched while running (`PATCH /__sandbox/faults`). */
export interface FaultSettings {
  /** Requests per second per key (docs/api-contract.md R-RATE-1); 0 turns the limit off. */
  readonly rate: number;
  /** Delay of every API answer, in ms. */
  readonly latencyMs: number;
  /** The delay varies uniformly by ± this many ms around `latencyMs` (never below 0). */
  readonly jitterMs: number;
  /** Fraction of requests answered 500: half before the write is applied, half after. */
  readonly failRate: number;
  /** Fraction of requests whose connection is destroyed without an answer, after the write. */
  readonly dropRate: number;
}

/**
 * What happens to one request that reached an endpoint:
 * - `fail-before`: 500, the endpoint never ran;
 * - `fail-after`: the endpoint ran (its write took effect), the client sees a 500;
 * - `drop`: the endpoint ran, then the connection is destroyed without an answer.
 */
export type Fault = 'fail-before' | 'fail-after' | 'drop';

/** The seeded dice. Each call draws a fixed number of values, so settings changed mid-run do not shift later draws. */
export class FaultDice {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = mulberry32(seed);
  }

  /** The delay of one answer (one draw): `latencyMs` ± `jitterMs`, rounded, at least 0. */
  delay(settings: Pick<FaultSettings, 'latencyMs' | 'jitterMs'>): number {
    const u = this.random();
    return Math.max(0, Math.round(settings.latencyMs + (2 * u - 1) * settings.jitterMs));
  }

  /** The fault of one request that reached an endpoint, or null (two draws). */
  fault(settings: Pick<FaultSettings, 'failRate' | 'dropRate'>): Fault | null {
    const u = this.random();
    const half = this.random();
    if (u < settings.failRate) return half < 0.5 ? 'fail-before' : 'fail-after';
    if (u < settings.failRate + settings.dropRate) return 'drop';
    return null;
  }
}

/** What a request whose fault is a 500 is answered, whatever its endpoint (R-ERR-5). */
export const SERVER_ERROR_ANSWER = {
  status: 500,
  payload: SERVER_ERROR_HTML,
  contentType: 'text/html; charset=utf-8',
  headers: {},
} as const;

/**
 * The endpoint's run under its fault:
 * - `serverError: true`: answer `SERVER_ERROR_ANSWER`; `result` is undefined when the endpoint never ran;
 * - `serverError: false`: answer the endpoint's `result` (the server drops the connection instead for `drop`).
 */
export type FaultedRun<T> =
  | { readonly serverError: true; readonly fault: Fault; readonly result: T | undefined }
  | { readonly serverError: false; readonly fault: Fault | null; readonly result: T };

/**
 * The one place a request that passed every check meets its fault (two draws): `fail-before`
 * answers 500 without running the endpoint, `fail-after` runs it (its write takes effect) and
 * answers 500, `drop` and no fault run it and keep its answer. Every endpoint, JSON or upload,
 * goes through here, so the same seed gives the same faults whichever endpoint a request reaches.
 */
export function runUnderFault<T>(
  dice: Pick<FaultDice, 'fault'>,
  settings: Pick<FaultSettings, 'failRate' | 'dropRate'>,
  endpoint: () => T,
): FaultedRun<T> {
  const fault = dice.fault(settings);
  if (fault === 'fail-before') return { serverError: true, fault, result: undefined };
  const result = endpoint();
  return fault === 'fail-after' ? { serverError: true, fault, result } : { serverError: false, fault, result };
}
