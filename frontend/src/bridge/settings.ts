import * as SettingsBinding from '../../wailsjs/go/desktop/Settings'
import type { llm, settings } from '../../wailsjs/go/models'
import { call } from './errors'

export type Settings = settings.Settings
export type SettingsOverride = settings.Override
export type SettingsView = settings.View
export type ConnectionResult = llm.ConnectionResult

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
    get: () => call(() => SettingsBinding.Get()),
    save: (s) => call(() => SettingsBinding.Save(s)),
    testConnection: (s) => call(() => SettingsBinding.TestConnection(s)),
  }
}
