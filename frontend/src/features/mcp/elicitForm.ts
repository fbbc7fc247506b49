/** The fields of a form an MCP server asks for (elicitation): its requested
 * schema is a flat object of strings (with a format), numbers, integers,
 * booleans, single-choice enums (enum, enum + enumNames, oneOf of consts)
 * and multiple-choice ones (an array of such items). */

export interface Choice {
  value: string
  label: string
}

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices'

export interface FormField {
  name: string
  kind: FieldKind
  label: string
  description?: string
  required: boolean
  format?: string
  choices?: Choice[]
  min?: number
  max?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  /** The default, as the form holds it. */
  initial: FieldValue
}

/** What a field holds while being filled in: a string (text, numbers as
 * typed, a choice), a boolean, or the chosen values. */
export type FieldValue = string | boolean | string[]

type Prop = {
  type?: string
  title?: string
  description?: string
  format?: string
  enum?: unknown[]
  enumNames?: unknown[]
  oneOf?: { const?: unknown; title?: string }[]
  anyOf?: { const?: unknown; title?: string }[]
  items?: Prop
  default?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
}

function choicesOf(p: Prop | undefined): Choice[] | undefined {
  if (!p) return undefined
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : []
    return p.enum.map((v, i) => ({ value: String(v), label: names[i] != null ? String(names[i]) : String(v) }))
  }
  const alts = p.oneOf ?? p.anyOf
  if (Array.isArray(alts) && alts.every((a) => a && a.const !== undefined)) {
    return alts.map((a) => ({ value: String(a.const), label: a.title ?? String(a.const) }))
  }
  return undefined
}

/** The fields of a requested schema: the required ones first, each group in
 * the schema's order. Properties of a kind no form can hold are left out. */
export function formFields(schema: unknown): FormField[] {
  const s = (schema ?? {}) as { properties?: Record<string, Prop>; required?: unknown[] }
  const required = new Set((Array.isArray(s.required) ? s.required : []).map(String))
  const out: FormField[] = []
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (!p || typeof p !== 'object') continue
    const base = { name, label: p.title || name, description: p.description, required: required.has(name) }
    const choices = choicesOf(p)
    if (p.type === 'array') {
      const items = choicesOf(p.items)
      if (!items) continue
      const def = Array.isArray(p.default) ? p.default.map(String) : []
      out.push({ ...base, kind: 'choices', choices: items, minItems: p.minItems, maxItems: p.maxItems, initial: def })
    } else if (choices) {
      out.push({ ...base, kind: 'choice', choices, initial: p.default != null ? String(p.default) : '' })
    } else if (p.type === 'boolean') {
      out.push({ ...base, kind: 'boolean', initial: p.default === true })
    } else if (p.type === 'number' || p.type === 'integer') {
      out.push({ ...base, kind: p.type, min: p.minimum, max: p.maximum, initial: typeof p.default === 'number' ? String(p.default) : '' })
    } else if (p.type === 'string' || p.type === undefined) {
      out.push({ ...base, kind: 'string', format: p.format, minLength: p.minLength, maxLength: p.maxLength, initial: typeof p.default === 'string' ? p.default : '' })
    }
  }
  // Required fields first (a schema that went through a map has lost its order).
  return [...out.filter((f) => f.required), ...out.filter((f) => !f.required)]
}

export function initialValues(fields: FormField[]): Record<string, FieldValue> {
  return Object.fromEntries(fields.map((f) => [f.name, f.initial]))
}

/** A problem of one field, as a message key and its values. */
export interface FieldProblem {
  field: string
  key: string
  values?: Record<string, string | number>
}

/** The answer's content from the values (an empty optional field is left
 * out; booleans are always sent), or the problems that keep it from being
 * sent. */
export function formContent(fields: FormField[], values: Record<string, FieldValue>): { content: Record<string, unknown>; problems: FieldProblem[] } {
  const content: Record<string, unknown> = {}
  const problems: FieldProblem[] = []
  for (const f of fields) {
    const v = values[f.name] ?? f.initial
    if (f.kind === 'boolean') {
      content[f.name] = v === true
      continue
    }
    if (f.kind === 'choices') {
      const list = Array.isArray(v) ? v : []
      if (list.length === 0 && !f.required) continue
      if (f.minItems != null && list.length < f.minItems) problems.push({ field: f.name, key: 'elicit.minItems', values: { n: f.minItems } })
      else if (f.maxItems != null && list.length > f.maxItems) problems.push({ field: f.name, key: 'elicit.maxItems', values: { n: f.maxItems } })
      else content[f.name] = list
      continue
    }
    const text = typeof v === 'string' ? v.trim() : ''
    if (text === '') {
      if (f.required) problems.push({ field: f.name, key: 'elicit.required' })
      continue
    }
    if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(text)
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) {
        problems.push({ field: f.name, key: f.kind === 'integer' ? 'elicit.notInteger' : 'elicit.notNumber' })
      } else if (f.min != null && n < f.min) problems.push({ field: f.name, key: 'elicit.min', values: { n: f.min } })
      else if (f.max != null && n > f.max) problems.push({ field: f.name, key: 'elicit.max', values: { n: f.max } })
      else content[f.name] = n
      continue
    }
    if (f.kind === 'choice') {
      if (!f.choices?.some((c) => c.value === text)) problems.push({ field: f.name, key: 'elicit.choose' })
      else content[f.name] = text
      continue
    }
    if (f.minLength != null && text.length < f.minLength) problems.push({ field: f.name, key: 'elicit.minLength', values: { n: f.minLength } })
    else if (f.maxLength != null && text.length > f.maxLength) problems.push({ field: f.name, key: 'elicit.maxLength', values: { n: f.maxLength } })
    else if (f.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) problems.push({ field: f.name, key: 'elicit.email' })
    else if (f.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(text)) problems.push({ field: f.name, key: 'elicit.uri' })
    else if (f.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) problems.push({ field: f.name, key: 'elicit.date' })
    else content[f.name] = text
  }
  return { content, problems }
}
