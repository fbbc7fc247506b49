import * as App from '../../wailsjs/go/main/App'
import type { main, settings } from '../../wailsjs/go/models'
import { call } from './errors'

export type Settings = settings.Settings
export type SettingsOverride = settings.Override
export type SettingsView = main.SettingsView
export type ConnectionResult = main.ConnectionResult

/** settings.json: read (API key masked), save, and test the LLM endpoint. */
export interface SettingsApi {
  get(): Promise<SettingsView>
  /** A still-masked API key keeps the stored key. */
  save(s: Settings): Promise<SettingsView>
  /** Tests the LLM settings as edited (unsaved); resolves with the outcome. */
  testConnection(s: Settings): Promise<ConnectionResult>
}

export function createWailsSettings(): SettingsApi {
  return {
    get: () => call(() => App.GetSettings()),
    save: (s) => call(() => App.SaveSettings(s)),
    testConnection: (s) => call(() => App.TestConnection(s)),
  }
}
