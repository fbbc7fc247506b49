import * as System from '../../wailsjs/go/desktop/System'
import { BrowserOpenURL, EventsEmit } from '../../wailsjs/runtime/runtime'
import { call } from './errors'

/** Facts about the running app, and the system browser. */
export interface SystemApi {
  version(): Promise<string>
  homeDir(): Promise<string>
  /** Opens an http, https or mailto URL in the system browser; false for
   * anything else (which is never opened). */
  openExternal(url: string): boolean
  /** Shows a desktop notification: the page's own when the system allowed
   * it, else the app's (the window:notify event; on Linux over D-Bus). */
  notify(title: string, body: string): void
}

/** The event the window sends to have the app show a notification. */
export const notifyEvent = 'window:notify'

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
    notify(title, body) {
      if (typeof Notification !== 'undefined' && Notification.permission === 'granted') {
        new Notification(title, { body })
        return
      }
      EventsEmit(notifyEvent, { title, body })
    },
  }
}
