import * as System from '../../wailsjs/go/desktop/System'
import { BrowserOpenURL } from '../../wailsjs/runtime/runtime'
import { call } from './errors'

/** Facts about the running app, and the system browser. */
export interface SystemApi {
  version(): Promise<string>
  homeDir(): Promise<string>
  /** Opens an http, https or mailto URL in the system browser; false for
   * anything else (which is never opened). */
  openExternal(url: string): boolean
}

const allowedSchemes = new Set(['http:', 'https:', 'mailto:'])

/** The URL when it is an absolute http, https or mailto URL, else null. */
export function safeExternalURL(raw: string): string | null {
  try {
    const u = new URL(raw.trim())
    return allowedSchemes.has(u.protocol) ? u.href : null
  } catch {
    return null
  }
}

export function createWailsSystem(): SystemApi {
  return {
    version: () => call(() => System.Version()),
    homeDir: () => call(() => System.HomeDir()),
    openExternal(url) {
      const safe = safeExternalURL(url)
      if (!safe) return false
      BrowserOpenURL(safe)
      return true
    },
  }
}
