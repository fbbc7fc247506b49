/** A catalogue of words: nested objects of strings. */
export type Tree = { [k: string]: string | Tree }

/** key → text, nested keys joined with dots. */
export function flatten(t: Tree, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [k, v] of Object.entries(t)) {
    if (typeof v === 'string') out.set(prefix + k, v)
    else flatten(v, `${prefix}${k}.`, out)
  }
  return out
}
