import type { McpProblem, McpServer, McpServerSpec } from '../../bridge'
import { t } from '../../i18n'
import { backendText } from '../../i18n/backend'

/** A configuration problem in the language in use, with the project file it
 * was found in when the backend's words said so. */
export function problemWords(p: McpProblem): string {
  if (!p.key) return p.message
  const problem = backendText(p)
  return p.in ? t('mcp.problemIn', { problem, file: p.in }) : problem
}

/** The add/edit form of a server: lists as text, one item a line. */
export interface McpForm {
  name: string
  kind: 'stdio' | 'http'
  command: string
  /** One argument a line. */
  args: string
  /** KEY=VALUE a line. */
  env: string
  /** A dotenv file whose variables are added to the environment. */
  envFile: string
  cwd: string
  url: string
  /** "Name: value" a line. */
  headers: string
  disabled: boolean
  /** What the entry says that the form does not edit (a url server's
   * transport and sign-in), kept as it was while the server stays a url one. */
  kept?: Pick<McpServerSpec, 'type' | 'oauth'>
}

export function emptyForm(): McpForm {
  return { name: '', kind: 'stdio', command: '', args: '', env: '', envFile: '', cwd: '', url: '', headers: '', disabled: false }
}

/** The form of a saved server (its secrets as the page shows them: masked). */
export function formOf(spec: McpServerSpec): McpForm {
  const lines = (m: Record<string, string> | undefined, sep: string) =>
    Object.entries(m ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}${sep}${v}`)
      .join('\n')
  return {
    name: spec.name,
    kind: spec.url ? 'http' : 'stdio',
    command: spec.command ?? '',
    args: (spec.args ?? []).join('\n'),
    env: lines(spec.env, '='),
    envFile: spec.envFile ?? '',
    cwd: spec.cwd ?? '',
    url: spec.url ?? '',
    headers: lines(spec.headers, ': '),
    disabled: !!spec.disabled,
    kept: spec.url && (spec.type || spec.oauth) ? { type: spec.type, oauth: spec.oauth } : undefined,
  }
}

/** Reads "key<sep>value" lines; blank lines are skipped. */
function pairs(text: string, sep: string, what: string, example: string, problems: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {}
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '')
    if (!line.trim()) return
    const at = line.indexOf(sep)
    const key = at < 0 ? '' : line.slice(0, at).trim()
    if (!key) {
      problems.push(t('mcpForm.err.line', { what, line: i + 1, example }))
      return
    }
    out[key] = line.slice(at + sep.length).replace(/^ /, '')
  })
  return Object.keys(out).length ? out : undefined
}

/** The spec a form stands for, and what is wrong with the form (the server
 * checks the rest and names each problem). */
export function specFromForm(f: McpForm): { spec: McpServerSpec; problems: string[] } {
  const problems: string[] = []
  const spec: McpServerSpec = { name: f.name.trim(), disabled: f.disabled || undefined }
  if (!spec.name) problems.push(t('mcpForm.err.name'))
  if (f.kind === 'stdio') {
    spec.command = f.command.trim()
    if (!spec.command) problems.push(t('mcpForm.err.command'))
    const args = f.args.split('\n').map((a) => a.replace(/\r$/, '')).filter((a) => a.trim() !== '')
    if (args.length) spec.args = args
    spec.env = pairs(f.env, '=', t('mcpForm.envWhat'), 'NAME=value', problems)
    if (f.envFile.trim()) spec.envFile = f.envFile.trim()
    if (f.cwd.trim()) spec.cwd = f.cwd.trim()
  } else {
    spec.url = f.url.trim()
    if (!spec.url) problems.push(t('mcpForm.err.url'))
    spec.headers = pairs(f.headers, ':', t('mcpForm.headersWhat'), t('mcpForm.headersExample'), problems)
    if (f.kept?.type) spec.type = f.kept.type
    if (f.kept?.oauth) spec.oauth = f.kept.oauth
  }
  return { spec, problems }
}

/** A server's status in words. */
export function statusText(s: McpServer): string {
  switch (s.state) {
    case 'ready':
      return t('mcpStatus.ready', { count: s.toolCount })
    case 'starting':
      return t('mcpStatus.starting')
    case 'failed':
      return s.gaveUp ? t('mcpStatus.gaveUp') : t('mcpStatus.failed')
    case 'pending-approval':
      return s.approvalChanged ? t('mcpStatus.changed') : t('mcpStatus.pending')
    case 'disabled':
      return t('mcpStatus.disabled')
    default:
      return t('mcpStatus.stopped')
  }
}

/** The last lines of a text (a stderr tail). */
export function lastLines(text: string, n: number): string {
  const lines = text.replace(/\s+$/, '').split('\n')
  return lines.slice(-n).join('\n')
}
