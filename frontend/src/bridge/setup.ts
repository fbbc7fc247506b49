import * as SetupBinding from '../../wailsjs/go/desktop/Setup'
import type { llm } from '../../wailsjs/go/models'
import { call } from './errors'

export type LocalServer = llm.LocalServer

/** What a first run needs to know about this computer. */
export interface SetupApi {
  /** The OpenAI-compatible servers running on this computer (Ollama, LM
   * Studio, vLLM on their usual ports) and their models; takes a second or
   * two at most. */
  localServers(): Promise<LocalServer[]>
  /** The folder a new project is proposed in (created with the project when
   * missing); "" when unknown. */
  defaultProjectLocation(): Promise<string>
}

export function createWailsSetup(): SetupApi {
  return {
    localServers: () => call(async () => (await SetupBinding.LocalServers()) ?? []),
    defaultProjectLocation: () => call(() => SetupBinding.DefaultProjectLocation()),
  }
}
