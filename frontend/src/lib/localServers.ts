import type { LocalServer } from '../bridge'
import { count } from './count'

/** "Ollama is running on this computer with 3 models", "… with one model,
 * llama3.2:3b", "… but has no model yet". */
export function describeLocalServer(s: LocalServer): string {
  const where = `${s.name} is running on this computer`
  if (s.models.length === 0) return `${where} but has no model yet`
  if (s.models.length === 1) return `${where} with one model, ${s.models[0]}`
  return `${where} with ${count(s.models.length, 'model')}`
}

/** The model to propose on a server: the one already chosen when it serves
 * it, else its first. */
export function proposedModel(s: LocalServer, current = ''): string {
  return s.models.includes(current) ? current : (s.models[0] ?? '')
}
