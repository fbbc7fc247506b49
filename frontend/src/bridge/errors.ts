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

  constructor(code: ErrorCode, message: string) {
    super(message)
    this.name = 'BridgeError'
    this.code = ReplacedCodes[code] ?? code
  }
}

const codedString = /^([A-Z][A-Z0-9_]*): ([\s\S]*)$/

export function toBridgeError(raw: unknown): BridgeError {
  if (raw instanceof BridgeError) return raw
  if (raw && typeof raw === 'object' && 'code' in raw && 'message' in raw) {
    const { code, message } = raw as { code: unknown; message: unknown }
    return new BridgeError(String(code), String(message))
  }
  const text = raw instanceof Error ? raw.message : typeof raw === 'string' ? raw : JSON.stringify(raw)
  const m = codedString.exec(text ?? '')
  if (m) return new BridgeError(m[1], m[2])
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
