import { Codes, ReplacedCodes } from './codes.gen'

/** Errors from bound Go methods arrive either as {code, message} or as a
 * plain "CODE: message" string (the window's error formatter). Both become a
 * BridgeError so the UI can branch on `code`: one of Codes (generated from
 * backend/errs), or Unknown for a rejection that carried no code. Codes that
 * were replaced are read as the code that replaced them. */
export const ErrorCodes = {
  ...Codes,
  /** a rejection that carried no code (never sent by the backend) */
  Unknown: 'E_UNKNOWN',
} as const

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes] | (string & {})

export class BridgeError extends Error {
  readonly code: ErrorCode
  /** The template the message was made from and the values it names, for
   * the window to say it in the user's language (i18n/backend.ts). */
  readonly key?: string
  readonly params?: Record<string, unknown>

  constructor(code: ErrorCode, message: string, key?: string, params?: Record<string, unknown>) {
    super(message)
    this.name = 'BridgeError'
    this.code = ReplacedCodes[code] ?? code
    if (key) this.key = key
    if (params) this.params = params
  }
}

const codedString = /^([A-Z][A-Z0-9_]*): ([\s\S]*)$/
/** Parts "CODE: message" from its template, {"key","params"} in JSON
 * (backend/desktop.WireSeparator). */
const wireSeparator = '\x1e'

function template(raw: string): { key?: string; params?: Record<string, unknown> } {
  try {
    const v = JSON.parse(raw) as { key?: unknown; params?: unknown }
    const key = typeof v.key === 'string' ? v.key : undefined
    const params = v.params && typeof v.params === 'object' && !Array.isArray(v.params) ? (v.params as Record<string, unknown>) : undefined
    return { key, params }
  } catch {
    return {}
  }
}

export function toBridgeError(raw: unknown): BridgeError {
  if (raw instanceof BridgeError) return raw
  if (raw && typeof raw === 'object' && 'code' in raw && 'message' in raw) {
    const { code, message, key, params } = raw as { code: unknown; message: unknown; key?: unknown; params?: unknown }
    return new BridgeError(String(code), String(message), typeof key === 'string' ? key : undefined, params && typeof params === 'object' ? (params as Record<string, unknown>) : undefined)
  }
  const full = raw instanceof Error ? raw.message : typeof raw === 'string' ? raw : JSON.stringify(raw)
  const cut = (full ?? '').indexOf(wireSeparator)
  const text = cut < 0 ? full : full.slice(0, cut)
  const m = codedString.exec(text ?? '')
  if (m) {
    const { key, params } = cut < 0 ? {} : template(full.slice(cut + 1))
    return new BridgeError(m[1], m[2], key, params)
  }
  return new BridgeError(ErrorCodes.Unknown, text || 'unknown error')
}

/** Runs a bound call and turns any rejection into a BridgeError. */
export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    throw toBridgeError(e)
  }
}
