import { vi } from 'vitest'
import { BridgeError, type McpApi, type McpElicitation, type McpElicitationAction, type McpParsed, type McpPrompt, type McpResource, type McpServer, type McpServerSpec, type McpView } from '../bridge'

const mask = (v: string) => (v.length < 8 ? '••••' : `••••${v.slice(-4)}`)
const masked = (m?: Record<string, string>) => (m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, mask(v)])) : undefined)
const commandOf = (s: McpServerSpec) => (s.url ? s.url : [s.command, ...(s.args ?? [])].join(' '))

/** One configured server of the fake: its stored configuration (secrets in
 * clear) and its state. */
export interface FakeMcpServer {
  spec: McpServerSpec
  source: 'settings' | 'project'
  /** The project file of a project server (.mcp.json when unset). */
  file?: string
  state: string
  tools?: { name: string; description: string }[]
  error?: string
  stderrTail?: string
  log?: string
  /** Why its tools are not offered (over the bounds of one server). */
  withheld?: string
}

/** An in-memory MCP page behaving like backend/app's: masked secrets that
 * are kept when sent back, approvals of project servers, restarts that make
 * a server ready (or failed, when it has an error). */
export function createFakeMcp(opts: { servers?: FakeMcpServer[]; enabled?: boolean; project?: string } = {}) {
  const servers = new Map<string, FakeMcpServer>((opts.servers ?? []).map((s) => [s.spec.name, { ...s, spec: { ...s.spec } }]))
  const options = { enabled: opts.enabled ?? true, startOnOpen: false, callTimeoutSeconds: 120 }
  const project = opts.project ?? 'demo'
  /** What the composer is offered, the forms waiting and their answers, the
   * servers signed in to: tests change them at will. */
  const composer = {
    prompts: [] as McpPrompt[],
    resources: [] as (McpResource & { text: string })[],
    elicitations: [] as McpElicitation[],
    answers: [] as { id: string; action: McpElicitationAction; content: Record<string, unknown> }[],
    signedIn: [] as string[],
  }
  const utf8base64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)))
  const view = (): McpView => ({
    ...options,
    allowedServers: [],
    servers: [...servers.values()]
      .sort((a, b) => a.spec.name.localeCompare(b.spec.name))
      .map(
        (s): McpServer => ({
          name: s.spec.name,
          source: s.source,
          file: s.source === 'project' ? (s.file ?? '.mcp.json') : undefined,
          transport: s.spec.url ? 'http' : 'stdio',
          state: s.spec.disabled ? 'disabled' : s.state,
          summary: s.state,
          command: commandOf(s.spec),
          toolCount: s.tools?.length ?? 0,
          tools: (s.tools ?? []).map((t) => ({ ...t, wireName: `mcp__${s.spec.name}__${t.name}`, inputSchema: { type: 'object' } })),
          error: s.state === 'failed' ? s.error : undefined,
          stderrTail: s.state === 'failed' ? s.stderrTail : undefined,
          logPath: s.spec.url ? undefined : `/home/test/logs/mcp/${s.spec.name}.log`,
          offered: options.enabled,
          withheld: s.withheld,
          // as backend/mcp: a project server's env is shown as written, with its
          // loader variables named
          warnings: s.source === 'project' && s.spec.env?.PYTHONPATH ? [`env PYTHONPATH makes python load modules (sitecustomize.py among them) from "${s.spec.env.PYTHONPATH}"`] : undefined,
          config: { ...s.spec, env: s.source === 'project' ? s.spec.env : masked(s.spec.env), headers: masked(s.spec.headers) },
        }),
      ),
    problems: [],
    project,
    settingsPath: '/home/test/.config/crewagent/settings.json',
  })
  const get = (name: string) => {
    const s = servers.get(name)
    if (!s) throw new BridgeError('E_MCP_SERVER_NOT_FOUND', `there is no MCP server "${name}" here`)
    return s
  }
  const keepMasked = (next?: Record<string, string>, old?: Record<string, string>) =>
    next ? Object.fromEntries(Object.entries(next).map(([k, v]) => [k, v.startsWith('••••') && old?.[k] !== undefined ? old[k] : v])) : undefined
  const parse = (text: string): { specs: McpServerSpec[]; parsed: McpParsed } => {
    const parsed: McpParsed = { servers: [], replaces: [], problems: [] }
    let doc: Record<string, unknown>
    try {
      const t = text.trim()
      doc = JSON.parse(t.startsWith('{') ? t : `{${t.replace(/,\s*$/, '')}}`) as Record<string, unknown>
    } catch (e) {
      parsed.problems.push({ message: `not a JSON object: ${(e as Error).message}` })
      return { specs: [], parsed }
    }
    const table = (doc.mcpServers ?? doc) as Record<string, Record<string, unknown>>
    const specs: McpServerSpec[] = []
    for (const [name, e] of Object.entries(table)) {
      if (!e || typeof e !== 'object' || (!e.command && !e.url)) {
        parsed.problems.push({ server: name, message: 'needs a command (a local server started by the app) or a url (a streamable HTTP server)' })
        continue
      }
      const spec = { name, ...(e as Omit<McpServerSpec, 'name'>) }
      specs.push(spec)
      parsed.servers.push({ ...view().servers[0], name, source: 'settings', transport: spec.url ? 'http' : 'stdio', state: 'stopped', command: commandOf(spec), tools: [], toolCount: 0, config: { ...spec, env: masked(spec.env), headers: masked(spec.headers) } })
      if (servers.has(name)) parsed.replaces.push(name)
    }
    return { specs, parsed }
  }

  const api: McpApi = {
    list: vi.fn(async () => view()),
    save: vi.fn(async (previous: string, spec: McpServerSpec) => {
      if (!spec.name) throw new BridgeError('E_MCP_CONFIG_INVALID', 'the MCP server cannot be saved: a server needs a name')
      if (spec.name !== previous && servers.has(spec.name)) throw new BridgeError('E_MCP_CONFIG_INVALID', `the MCP server cannot be saved: server "${spec.name}": exists already`)
      const old = previous ? get(previous) : undefined
      const next: FakeMcpServer = { source: 'settings', state: 'stopped', ...old, spec: { ...spec, env: keepMasked(spec.env, old?.spec.env), headers: keepMasked(spec.headers, old?.spec.headers) } }
      if (previous) servers.delete(previous)
      servers.set(spec.name, next)
      return view()
    }),
    remove: vi.fn(async (name: string) => {
      get(name)
      servers.delete(name)
      return view()
    }),
    setEnabled: vi.fn(async (name: string, enabled: boolean) => {
      get(name).spec.disabled = !enabled || undefined
      return view()
    }),
    parseBlock: vi.fn(async (text: string) => parse(text).parsed),
    importBlock: vi.fn(async (text: string) => {
      const { specs, parsed } = parse(text)
      if (!specs.length) throw new BridgeError('E_MCP_CONFIG_INVALID', `the MCP server cannot be saved: ${parsed.problems.map((p) => p.message).join('; ')}`)
      const added: string[] = []
      const replaced: string[] = []
      for (const spec of specs) {
        ;(servers.has(spec.name) ? replaced : added).push(spec.name)
        servers.set(spec.name, { spec, source: 'settings', state: 'stopped' })
      }
      return { added, replaced, problems: parsed.problems }
    }),
    setOptions: vi.fn(async (o) => {
      if (o.callTimeoutSeconds <= 0) throw new BridgeError('E_SETTINGS_INVALID', `invalid settings: tools.mcp.callTimeoutSeconds: must be a positive integer, got ${o.callTimeoutSeconds}`)
      Object.assign(options, o)
      return view()
    }),
    approve: vi.fn(async (name: string) => {
      const s = get(name)
      if (s.source !== 'project') throw new BridgeError('E_INVALID_ARGUMENT', `the MCP server "${name}" comes from the settings: it needs no approval`)
      s.state = 'stopped'
      return view()
    }),
    revoke: vi.fn(async (name: string) => {
      get(name).state = 'pending-approval'
      return view()
    }),
    restart: vi.fn(async (name: string) => {
      const s = get(name)
      if (s.state === 'pending-approval') throw new BridgeError('E_MCP_NOT_APPROVED', `the MCP server "${name}" is not approved`)
      s.state = s.error ? 'failed' : 'ready'
      return view()
    }),
    log: vi.fn(async (name: string) => get(name).log ?? ''),
    composer: vi.fn(async () => ({ prompts: composer.prompts, resources: composer.resources.map(({ text: _, ...r }) => r) })),
    prompt: vi.fn(async (server: string, name: string, args: Record<string, string>) => {
      const p = composer.prompts.find((x) => x.server === server && x.name === name)
      if (!p) throw new BridgeError('E_MCP_PROTOCOL', `the MCP server "${server}": getting the prompt "${name}" failed: no such prompt`)
      const missing = (p.arguments ?? []).filter((a) => a.required && !args[a.name])
      if (missing.length) throw new BridgeError('E_MCP_PROTOCOL', `the MCP server "${server}": getting the prompt "${name}" failed: ${missing[0].name} is required`)
      const given = Object.entries(args).map(([k, v]) => `${k}=${v}`).join(', ')
      return { text: `Prompt ${name}${given ? ` (${given})` : ''}`, attachments: [] }
    }),
    attachResource: vi.fn(async (server: string, uri: string) => {
      const r = composer.resources.find((x) => x.server === server && x.uri === uri)
      if (!r) throw new BridgeError('E_MCP_PROTOCOL', `the MCP server "${server}": reading ${uri} failed: not found`)
      return { name: `${uri.split('/').pop()}.txt`, data: utf8base64(r.text) }
    }),
    elicitations: vi.fn(async () => composer.elicitations),
    answerElicitation: vi.fn(async (id: string, action: McpElicitationAction, content: Record<string, unknown>) => {
      if (!composer.elicitations.some((e) => e.id === id)) throw new BridgeError('E_NOT_FOUND', `the server's request ${id} is not waiting any more (its call ended)`)
      composer.elicitations = composer.elicitations.filter((e) => e.id !== id)
      composer.answers.push({ id, action, content })
    }),
    signedIn: vi.fn(async () => composer.signedIn),
    signOut: vi.fn(async (name: string) => {
      const had = composer.signedIn.includes(name)
      composer.signedIn = composer.signedIn.filter((n) => n !== name)
      return { signedIn: had, revoked: had }
    }),
  }
  return { api, servers, options, composer }
}
