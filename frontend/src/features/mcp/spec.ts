import type { McpServer, McpServerSpec } from '../../bridge'

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
      problems.push(`${what}, line ${i + 1}: write ${example}`)
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
  if (!spec.name) problems.push('Give the server a name.')
  if (f.kind === 'stdio') {
    spec.command = f.command.trim()
    if (!spec.command) problems.push('Give the command that starts the server (for example npx or node).')
    const args = f.args.split('\n').map((a) => a.replace(/\r$/, '')).filter((a) => a.trim() !== '')
    if (args.length) spec.args = args
    spec.env = pairs(f.env, '=', 'Environment', 'NAME=value', problems)
    if (f.envFile.trim()) spec.envFile = f.envFile.trim()
    if (f.cwd.trim()) spec.cwd = f.cwd.trim()
  } else {
    spec.url = f.url.trim()
    if (!spec.url) problems.push('Give the URL of the server (https://…/mcp).')
    spec.headers = pairs(f.headers, ':', 'Headers', 'Name: value', problems)
  }
  return { spec, problems }
}

/** A server's status in words. */
export function statusText(s: McpServer): string {
  switch (s.state) {
    case 'ready':
      return `Ready · ${s.toolCount} ${s.toolCount === 1 ? 'tool' : 'tools'}`
    case 'starting':
      return 'Starting…'
    case 'failed':
      return s.gaveUp ? 'Failed · not retried any more' : 'Failed'
    case 'pending-approval':
      return s.approvalChanged ? 'Changed · waiting for approval' : 'Waiting for approval'
    case 'disabled':
      return 'Disabled'
    default:
      return 'Not running'
  }
}

/** The last lines of a text (a stderr tail). */
export function lastLines(text: string, n: number): string {
  const lines = text.replace(/\s+$/, '').split('\n')
  return lines.slice(-n).join('\n')
}
