import type { LocalServer } from '../bridge'
import { t } from '../i18n'

/** "Ollama is running on this computer with 3 models", "… with one model,
 * llama3.2:3b", "… but has no model yet". */
export function describeLocalServer(s: LocalServer): string {
  if (s.models.length === 0) return t('local.noModel', { name: s.name })
  if (s.models.length === 1) return t('local.oneModel', { name: s.name, model: s.models[0] })
  return t('local.models', { name: s.name, count: s.models.length })
}

/** The model to propose on a server: the one already chosen when it serves
 * it, else its first. */
export function proposedModel(s: LocalServer, current = ''): string {
  return s.models.includes(current) ? current : (s.models[0] ?? '')
}
