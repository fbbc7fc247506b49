/** Errors from bound Go methods arrive either as {code, message} (the app's
 * error formatter, see errors.go) or as a plain "CODE: message" string. Both
 * become a BridgeError so the UI can branch on `code`. */
export const ErrorCodes = {
  // the facade (errors.go)
  NoProject: 'E_NO_PROJECT',
  Dialog: 'E_DIALOG',
  Internal: 'E_INTERNAL',
  // backend/project
  Home: 'E_HOME',
  ProjectNotFound: 'E_PROJECT_NOT_FOUND',
  ProjectNotDir: 'E_PROJECT_NOT_DIR',
  ProjectMetaCorrupt: 'E_PROJECT_META_CORRUPT',
  ProjectMetaInvalid: 'E_PROJECT_META_INVALID',
  ProjectNameInvalid: 'E_PROJECT_NAME_INVALID',
  ProjectExists: 'E_PROJECT_EXISTS',
  RecentCorrupt: 'E_RECENT_CORRUPT',
  ProjectIO: 'E_PROJECT_IO',
  ProjectLocked: 'E_PROJECT_LOCKED',
  Busy: 'E_BUSY',
  InvalidMode: 'E_INVALID_MODE',
  // backend/convlog
  NotFound: 'E_NOT_FOUND',
  InvalidArgument: 'E_INVALID_ARGUMENT',
  CheckpointExists: 'E_CHECKPOINT_EXISTS',
  // backend/settings
  SettingsInvalid: 'E_SETTINGS_INVALID',
  SettingsCorrupt: 'E_SETTINGS_CORRUPT',
  LLMNotConfigured: 'E_LLM_NOT_CONFIGURED',
  // backend/packages and the package import
  PackageInvalid: 'PKG_INVALID',
  PackageNotFound: 'PKG_NOT_FOUND',
  PackageOpen: 'PKG_OPEN',
  // backend/workflow and run files
  RunNotFound: 'RUN_NOT_FOUND',
  RunNoPackage: 'RUN_NO_PACKAGE',
  RunNoWidget: 'RUN_NO_PENDING_WIDGET',
  RunBadAnswer: 'RUN_BAD_ANSWER',
  ArtifactPath: 'E_ARTIFACT_PATH',
  // a rejection that carried no code
  Unknown: 'E_UNKNOWN',
} as const

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes] | (string & {})

export class BridgeError extends Error {
  readonly code: ErrorCode

  constructor(code: ErrorCode, message: string) {
    super(message)
    this.name = 'BridgeError'
    this.code = code
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
