import { vi } from 'vitest'
import {
  BridgeError,
  type ActivePackageView,
  type AgentInfo,
  type Bridge,
  type ContextPreview,
  type ConversationMeta,
  type EndpointModels,
  type Entry,
  type EventMap,
  type EventName,
  type ExecLogLine,
  type InstalledPackage,
  type LocalServer,
  type PackageImport,
  type ProjectInfo,
  type RecentProject,
  type RestoreResult,
  type RewindResult,
  type RewindWhat,
  type RunStatus,
  type Settings,
  type SettingsView,
  type WaitingView,
  type WidgetAnswer,
} from '../bridge'
import { runInput, withView } from './entries'
import { createFakeMcp, type FakeMcpServer } from './fakeMcp'
import { createFakeSkills, type FakeSkill } from './fakeSkills'

/** The bundled demo package as packages.json records it. */
export const demoPackage: InstalledPackage = {
  id: 'crewagent-demo@1.0.0',
  name: 'crewagent-demo',
  version: '1.0.0',
  description: 'Turn a rough idea into a one-page project brief.',
  installedAt: '2026-06-01T00:00:00Z',
  path: 'packages/crewagent-demo@1.0.0',
  workflows: [{ id: 'write-brief', displayName: 'Write a project brief', description: 'Idea → notes → brief.' }],
  agents: [
    { id: 'analyst', name: 'Mara', title: 'Product Analyst', icon: '🔍' },
    { id: 'writer', name: 'Theo', title: 'Brief Writer', icon: '✍️' },
  ],
}

/** The nodes of the demo workflow, all pending. */
export const demoNodes = [
  { id: 'capture-idea', title: 'Capture the idea', type: 'step', status: 'pending' },
  { id: 'check-clarity', title: 'Is the idea clear enough?', type: 'decision', status: 'pending' },
  { id: 'clarify-idea', title: 'Clarify the idea', type: 'step', status: 'pending' },
  { id: 'draft-brief', title: 'Draft the brief', type: 'step', status: 'pending' },
  { id: 'end', title: 'Wrap up', type: 'end', status: 'pending' },
]

type Handler = (payload: unknown) => void

export interface FakeChange {
  conversationId: string
  messageId: string
  toolCallId: string
  path: string
  before: string | null
  after: string | null
}

/** An in-memory Go side for tests: a set of existing folders, the recent
 * list and the current project, behaving like backend/project. Every method
 * is a vi.fn so tests can look at the calls. */
export function createFakeBridge(
  opts: {
    folders?: string[]
    recent?: Omit<RecentProject, 'exists'>[]
    current?: ProjectInfo | null
    version?: string
    /** Conversations: entries without a view get the view of their role
     * (test/entries.ts); unfinished is what the backend would say of the log. */
    conversations?: {
      meta: Partial<ConversationMeta> & { id: string }
      entries?: Entry[]
      unfinished?: boolean
      awaiting?: boolean
      canContinue?: boolean
      agents?: Record<string, AgentInfo>
      /** What a tool call of it waits for (conv.create, conv.send). */
      waitingFor?: WaitingView
    }[]
    llmConfigured?: boolean
    /** Installed packages (default: the demo). */
    packages?: InstalledPackage[]
    /** The active package of projects that open (default: none). */
    activePackageId?: string
    /** Runs by conversation. */
    runs?: RunStatus[]
    /** Execution log lines by run id. */
    runLogs?: Record<string, ExecLogLine[]>
    /** Project files by project-relative path. */
    files?: Record<string, string>
    /** Changes the tools made to the files (the checkpoint journal), oldest
     * first: null is a file that did not exist. */
    changes?: FakeChange[]
    /** MCP servers (Settings → MCP). */
    mcpServers?: FakeMcpServer[]
    /** Skills of the project (test/fakeSkills.ts). */
    skills?: FakeSkill[]
    /** Local LLM servers "running on this computer". */
    localServers?: LocalServer[]
    /** The proposed location of new projects (default: /home/test/CrewAgent Projects). */
    defaultLocation?: string
    /** Folders that look like a project moved from another path: folder → the path it moved from. */
    moved?: Record<string, string>
    /** The saved theme (default: light). */
    theme?: string
    /** The models every endpoint lists (default: fake-model, fake-model-large). */
    models?: string[]
    /** Fields set by the environment (default: llm.model by CREWAGENT_LLM_MODEL). */
    overrides?: { field: string; variable: string }[]
    /** Out-of-range values of the settings in effect (default: none). */
    settingsWarnings?: { field: string; message: string }[]
  } = {},
) {
  const folders = new Set(opts.folders ?? [])
  let recent = [...(opts.recent ?? [])]
  let current = opts.current ?? null
  let nextFolder: string | null = null
  let nextFile: string | null = null
  const handlers = new Map<string, Set<Handler>>()
  const base = (p: string) => p.replace(/\/+$/, '').split('/').pop() ?? p
  const info = (root: string): ProjectInfo => ({
    id: `id-${base(root)}`,
    name: base(root),
    root,
    dataDir: `/home/test/.config/crewagent/projects/id-${base(root)}`,
    activePackageId: opts.activePackageId ?? '',
  })
  const touch = (p: ProjectInfo) => {
    recent = [{ root: p.root, id: p.id, name: p.name, lastOpenedAt: new Date().toISOString() }, ...recent.filter((r) => r.root !== p.root)]
  }

  // conversations: an in-memory store behaving like backend/convlog
  let clock = Date.parse('2026-06-01T00:00:00Z')
  const stamp = () => new Date((clock += 1000)).toISOString()
  let seq = 0
  const newId = (p: string) => `${p}-${++seq}`
  const convs = new Map<
    string,
    { meta: ConversationMeta; entries: Entry[]; unfinished?: boolean; awaiting?: boolean; canContinue?: boolean; agents?: Record<string, AgentInfo>; waitingFor?: WaitingView }
  >()
  for (const c of opts.conversations ?? []) {
    convs.set(c.meta.id, {
      meta: { title: 'New conversation', activeType: 'chat', createdAt: stamp(), lastActiveAt: stamp(), messageCount: 0, ...c.meta },
      entries: (c.entries ?? []).map(withView),
      unfinished: c.unfinished,
      awaiting: c.awaiting,
      canContinue: c.canContinue,
      agents: c.agents,
      waitingFor: c.waitingFor,
    })
  }
  const conv = (id: string) => {
    const c = convs.get(id)
    if (!c) throw new BridgeError('E_NOT_FOUND', `convlog: conversation ${id}: not found`)
    return c
  }
  const metaOf = (c: { meta: ConversationMeta; entries: Entry[] }): ConversationMeta => ({
    ...c.meta,
    messageCount: c.entries.filter((e) => e.type === 'msg').length,
  })
  const streaming = new Set<string>()
  const branchOps: { op: 'edit' | 'regenerate' | 'switch'; conversationId: string; messageId?: string; text?: string; after?: string; index?: number }[] = []
  const exports: { conversationId: string; format: string }[] = []
  let nextSave: string | null = '/home/test/export.md'
  /** Takes what follows entry i (exclusive) out of the version shown, as a
   * branch does, and records the branch event. */
  const branchAt = (c: { entries: Entry[] }, i: number, event: 'branch' | 'branch_switch', after: string) => {
    c.entries = c.entries.map((e, j) => (j > i && e.type === 'msg' ? { ...e, includeInContext: false, view: { ...(e.view ?? { kind: 'hidden' }), inactive: true } } : e))
    c.entries.push({ type: 'evt', id: newId('evt'), createdAt: stamp(), event, data: { after }, view: { kind: 'event' } })
  }
  /** Publishes what a write changed in a conversation as the app does
   * (conversation:entries): the entries that are not those of before, and
   * how the conversation ends; reload when it made or chose a version. */
  const publish = (id: string, before: Entry[], reload = false) => {
    const c = convs.get(id)
    if (!c) return
    const old = new Set(before)
    const idle = !streaming.has(id)
    const ev = { conversationId: id, conversation: metaOf(c), entries: c.entries.filter((e) => !old.has(e)), settled: idle, unfinished: idle && !!c.unfinished, awaiting: idle && !!c.awaiting, canContinue: idle && !!c.canContinue, agents: c.agents ?? {}, waitingFor: c.waitingFor, reload }
    handlers.get('conversation:entries')?.forEach((h) => h(ev))
  }
  /** Runs a write of conversation id and publishes what it changed. */
  const writing = <T,>(id: string, write: () => T, reload = false): T => {
    const before = convs.has(id) ? [...conv(id).entries] : []
    const out = write()
    publish(id, before, reload)
    return out
  }
  const sent: { conversationId: string; text: string; mode: string; agentId?: string; retry?: boolean; attachments?: { name: string; data: string }[] }[] = []
  /** Approval answers given, in order, and the conversations' approval modes. */
  const approvals: { conversationId: string; toolCallId: string; decision: string; reason: string }[] = []
  const approvalModes = new Map<string, string>()
  /** The endpoints and models the composer's model chip offers. */
  const endpointModels: EndpointModels[] = [
    { name: 'default', baseUrl: 'http://127.0.0.1:1/v1', models: ['fake-model', 'fake-large'], default: 'fake-model' },
    { name: 'lab', baseUrl: 'http://127.0.0.1:2/v1', models: ['qwen3:8b'], error: '' },
  ]
  const settingsState: { settings: Settings; llmConfigured: boolean } = {
    settings: {
      llm: { baseUrl: opts.llmConfigured === false ? '' : 'http://127.0.0.1:1/v1', model: opts.llmConfigured === false ? '' : 'fake-model', apiKey: '••••abcd', timeoutSeconds: 120, summaryModel: '', connectTimeoutSeconds: 10, firstTokenTimeoutSeconds: 60, idleTimeoutSeconds: 60, maxRetries: 3, embeddingsModel: '', embeddingsBaseUrl: '' },
      context: { maxMessages: 80, maxChars: 120000, tokenBudget: 128000, reserveForResponse: 8192, triggerThreshold: 0.8, targetAfterCompression: 0.5, compressionStrategy: 'key-messages', includeToolResultsInContext: true, includeCollapsedUiEventsInContext: false, summaryShare: 0.15, recallShare: 0.1 },
      tools: { fs: { enabled: true, maxReadBytes: 524288, maxWriteBytes: 2097152 }, mcp: { enabled: false, allowedServers: [], startOnOpen: false, callTimeoutSeconds: 120, maxToolsPerServer: 128, maxToolTokensPerServer: 32000 }, shell: { enabled: true, inChat: false, timeoutSeconds: 600, allowNetwork: false } },
      engine: { maxTurns: 30, maxToolCallsPerMessage: 64, maxInterruptChainDepth: 4, maxConversationsPerMessage: 20, maxModelCallsPerMessage: 200 },
      theme: opts.theme ?? 'light',
    },
    llmConfigured: opts.llmConfigured !== false,
  }
  const view = (): SettingsView => ({
    settings: JSON.parse(JSON.stringify(settingsState.settings)),
    overrides: opts.overrides ?? [{ field: 'llm.model', variable: 'CREWAGENT_LLM_MODEL' }],
    llmConfigured: settingsState.llmConfigured,
    hasApiKey: true,
    path: '/home/test/.config/crewagent/settings.json',
    warnings: opts.settingsWarnings ?? [],
  })
  const preview = (id: string, mode: string): ContextPreview => {
    const c = conv(id)
    const msgs = c.entries.filter((e) => e.type === 'msg')
    const used = 100 + msgs.reduce((n, e) => n + (e.tokens ?? 10), 0)
    return {
      conversationId: id,
      mode,
      model: 'fake-model',
      messages: [
        { index: 0, role: 'system', content: 'You are helpful.', kind: 'system', tokens: 100, reason: 'system prompt' },
        ...msgs.map((e, i) => ({ index: i + 1, role: e.role ?? '', content: e.content, sourceId: e.id, kind: 'history', tokens: e.tokens ?? 10, reason: 'kept: recent' })),
      ],
      toolNames: mode === 'agent' ? ['fs.read'] : [],
      conversation: { messages: msgs.length, loaded: msgs.length, compacted: 0, compactions: [], pins: [], recalled: [], full: true },
      toolTokens: 0,
      usage: { conversationId: id, usedTokens: used, totalBudget: 1000, usagePercent: used / 10, remaining: 1000 - used, status: 'normal' },
      build: { mode, rows: [], kept: [], dropped: [], compressed: [], counts: { entries: 0, events: 0, messages: 0, system: 1, history: 0, injections: 0, kept: 0, dropped: 0, compressed: 0, synthetic: 0, recalled: 0, pinned: 0, trimmed: 0 }, usedTokens: used, fullTokens: used, fullMessages: msgs.length, fullChars: 0, recallTokens: 0, recalled: [], tokenLimit: 1000, budget: { tokenBudget: 1000, reserveForResponse: 0, maxMessages: 80, maxChars: 120000 }, usedChars: 0, overBudget: false, safetyNet: false },
    }
  }

  // packages and runs
  const installed: InstalledPackage[] = [...(opts.packages ?? [demoPackage])]
  const runs = new Map<string, RunStatus>((opts.runs ?? []).map((r) => [r.conversationId, r]))
  const runLogs = new Map<string, ExecLogLine[]>(Object.entries(opts.runLogs ?? {}))
  const files = new Map<string, string>(Object.entries(opts.files ?? {}))
  // Rewinds and undos, like backend/checkpoint: each path goes back to its
  // state before the oldest selected change; a file that is no longer what
  // the tools left is kept unless forced. A restore is recorded under its id.
  const changes = [...(opts.changes ?? [])]
  const restores = new Map<string, FakeChange[]>()
  const restore = (sel: FakeChange[], left: (c: FakeChange) => string | null, force: string[], dryRun: boolean) => {
    const res: RestoreResult = { restored: [], kept: [], unrestorable: [] }
    const seen = new Set<string>()
    const undo: FakeChange[] = []
    const id = newId('rw')
    for (const c of sel) {
      if (seen.has(c.path)) continue
      seen.add(c.path)
      const cur = files.get(c.path) ?? null
      if (cur === c.before) continue
      if (cur !== left(c) && !force.includes(c.path)) {
        res.kept.push(c.path)
        continue
      }
      res.restored.push(c.path)
      undo.push({ ...c, toolCallId: id, before: cur, after: c.before })
    }
    res.restored.sort()
    res.kept.sort()
    if (res.restored.length + res.kept.length === 0) throw new BridgeError('E_NOT_FOUND', 'nothing to restore')
    if (dryRun) return res
    for (const u of undo) {
      if (u.after === null) files.delete(u.path)
      else files.set(u.path, u.after)
    }
    restores.set(id, undo)
    return { ...res, rewindId: id }
  }
  const lastLeft = (c: FakeChange) => [...changes].reverse().find((x) => x.path === c.path)?.after ?? null
  const answers: { runId: string; widgetId: string; answer: WidgetAnswer }[] = []
  const runOf = (runId: string) => {
    const r = [...runs.values()].find((x) => x.runId === runId)
    if (!r) throw new BridgeError('RUN_NOT_FOUND', `run ${runId} not found`)
    return r
  }
  const activeView = (): ActivePackageView => {
    const id = current?.activePackageId ?? ''
    const p = installed.find((x) => x.id === id)
    if (!id) return { packageId: '', name: '', version: '', description: '', workflows: [], agents: [], problem: 'This project has no active package: choose one in Settings → Packages.' }
    if (!p) return { packageId: id, name: '', version: '', description: '', workflows: [], agents: [], problem: `The project's package ${id} cannot be loaded` }
    return {
      packageId: id,
      name: p.name,
      version: p.version,
      description: p.description,
      workflows: p.workflows.map((w, i) => ({ ...w, default: i === 0, nodes: 5 })),
      agents: p.agents.map((a) => ({ ...a, description: '' })),
    }
  }

  const mcp = createFakeMcp({ servers: opts.mcpServers })
  const skills = createFakeSkills(
    opts.skills ?? [],
    (id, ...entries) => writing(id, () => conv(id).entries.push(...entries.map(withView))),
    (id) => handlers.get('conversation:changed')?.forEach((h) => h({ conversationId: id, kind: 'updated' })),
  )
  let instructions = { name: 'AGENTS.md', path: '@project/AGENTS.md', exists: false, text: '', size: 0 }
  const compactions: { conversationId: string; focus: string }[] = []
  const notifications: { title: string; body: string }[] = []

  const bridge: Bridge = {
    mcp: mcp.api,
    system: {
      version: vi.fn(async () => opts.version ?? '9.9.9'),
      homeDir: vi.fn(async () => '/home/test/.config/crewagent'),
      openExternal: vi.fn((url: string) => /^(https?:|mailto:)/.test(url)),
      notify: vi.fn((title: string, body: string) => void notifications.push({ title, body })),
    },
    conversations: {
      list: vi.fn(async () => [...convs.values()].map(metaOf).sort((a, b) => (a.lastActiveAt < b.lastActiveAt ? 1 : -1))),
      get: vi.fn(async (id: string) => metaOf(conv(id))),
      create: vi.fn(async (title = '') => {
        const t = stamp()
        const meta: ConversationMeta = { id: newId('conv'), title: title || 'New conversation', activeType: 'chat', createdAt: t, lastActiveAt: t, messageCount: 0 }
        convs.set(meta.id, { meta, entries: [] })
        return meta
      }),
      rename: vi.fn(async (id: string, title: string) => {
        const c = conv(id)
        if (!title.trim()) throw new BridgeError('E_INVALID_ARGUMENT', 'title must be non-empty text on one line')
        c.meta = { ...c.meta, title: title.trim() }
        return metaOf(c)
      }),
      remove: vi.fn(async (id: string) => {
        conv(id)
        convs.delete(id)
      }),
      search: vi.fn(async (query: string) => {
        const q = query.trim().toLowerCase()
        return [...convs.values()]
          .map((c) => {
            const matches = c.entries.filter((e) => e.type === 'msg' && (e.role === 'user' || e.role === 'assistant') && (e.content ?? '').toLowerCase().includes(q))
            const last = matches[matches.length - 1]
            return {
              conversationId: c.meta.id,
              title: c.meta.title,
              lastActiveAt: c.meta.lastActiveAt,
              titleMatch: c.meta.title.toLowerCase().includes(q),
              matches: matches.length,
              messageId: last?.id,
              role: last?.role,
              snippet: last?.content,
            }
          })
          .filter((h) => h.titleMatch || h.matches > 0)
      }),
      fork: vi.fn(async (id: string, at: { messageId?: string; checkpoint?: string }) => {
        const c = conv(id)
        let entries = c.entries
        if (at.messageId) {
          const i = entries.findIndex((e) => e.id === at.messageId)
          if (i < 0) throw new BridgeError('E_NOT_FOUND', `message ${at.messageId} not found`)
          entries = entries.slice(0, i + 1)
        }
        const t = stamp()
        const meta: ConversationMeta = { ...c.meta, id: newId('conv'), title: `${c.meta.title} (fork)`, parentId: id, forkedFromMessageId: at.messageId, createdAt: t, lastActiveAt: t }
        convs.set(meta.id, { meta, entries: [{ type: 'evt', id: newId('evt'), createdAt: t, event: 'fork_origin', data: { parentId: id, parentTitle: c.meta.title } }, ...entries] })
        return metaOf(convs.get(meta.id)!)
      }),
      rewind: vi.fn(async (id: string, to: string, o: { what: RewindWhat; forcePaths?: string[]; dryRun?: boolean }) => {
        const c = conv(id)
        const out: RewindResult = { conversationId: id, to }
        const undo = restores.get(to)
        if (undo) {
          out.files = restore(undo, (u) => u.after, o.forcePaths ?? [], !!o.dryRun)
          return out
        }
        const at = c.entries.findIndex((e) => e.id === to)
        if (at < 0) throw new BridgeError('E_NOT_FOUND', `message ${to} not found`)
        if (o.what !== 'conversation') {
          const turns = new Set(c.entries.slice(at).filter((e) => e.role === 'user').map((e) => e.id))
          try {
            out.files = restore(changes.filter((x) => x.conversationId === id && turns.has(x.messageId)), lastLeft, o.forcePaths ?? [], !!o.dryRun)
          } catch (e) {
            if (!(e instanceof BridgeError) || (o.what === 'files' && !o.dryRun)) throw e
          }
        }
        if (o.what !== 'files' && !o.dryRun && at > 0) {
          const t = stamp()
          const meta: ConversationMeta = { ...c.meta, id: newId('conv'), title: `${c.meta.title} (fork)`, parentId: id, forkedFromMessageId: c.entries[at - 1].id, createdAt: t, lastActiveAt: t }
          convs.set(meta.id, { meta, entries: c.entries.slice(0, at) })
          out.newConversationId = meta.id
        }
        return out
      }),
      undoChange: vi.fn(async (id: string, callId: string, o: { forcePaths?: string[]; dryRun?: boolean }) => {
        const sel = changes.filter((x) => x.conversationId === id && x.toolCallId === callId)
        if (sel.length === 0) throw new BridgeError('E_NOT_FOUND', 'nothing to undo')
        return restore(sel, (c) => c.after, o.forcePaths ?? [], !!o.dryRun)
      }),
      checkpoint: vi.fn(async (id: string, name: string) => {
        return writing(id, () => {
          const c = conv(id)
          if ((c.meta.checkpoints ?? []).some((cp) => cp.name === name)) throw new BridgeError('E_CHECKPOINT_EXISTS', `checkpoint "${name}" already exists`)
          const cp = { name, messageId: c.entries[c.entries.length - 1]?.id ?? '', createdAt: stamp() }
          c.meta = { ...c.meta, checkpoints: [...(c.meta.checkpoints ?? []), cp] }
          c.entries.push({ type: 'evt', id: newId('evt'), createdAt: cp.createdAt, event: 'checkpoint', data: { name, messageId: cp.messageId } })
          return cp
        })
      }),
      load: vi.fn(async (id: string, limit = 300) => {
        const c = conv(id)
        const n = limit || 300
        const idle = !streaming.has(id)
        return {
          conversation: metaOf(c),
          entries: c.entries.slice(-n),
          hasMore: c.entries.length > n,
          streaming: !idle,
          unfinished: idle && !!c.unfinished,
          awaiting: idle && !!c.awaiting,
          canContinue: idle && !!c.canContinue,
          agents: c.agents ?? {},
          waitingFor: c.waitingFor,
        }
      }),
      loadOlder: vi.fn(async (id: string, beforeId: string, limit = 300) => {
        const c = conv(id)
        const i = c.entries.findIndex((e) => e.id === beforeId)
        if (i < 0) throw new BridgeError('E_NOT_FOUND', `entry ${beforeId} is not in conversation ${id}`)
        const start = Math.max(0, i - (limit || 300))
        return { conversation: metaOf(c), entries: c.entries.slice(start, i), hasMore: start > 0, streaming: streaming.has(id), agents: c.agents ?? {} }
      }),
      switchBranch: vi.fn(async (id: string, after: string, index: number) => {
        return writing(id, () => {
          const c = conv(id)
          if (streaming.has(id)) throw new BridgeError('E_BUSY', 'a reply is already being generated in this conversation')
          branchOps.push({ op: 'switch', conversationId: id, after, index })
          c.entries.push({ type: 'evt', id: newId('evt'), createdAt: stamp(), event: 'branch_switch', data: { after, active: index }, view: { kind: 'event' } })
        }, true)
      }),
      exportText: vi.fn(async (id: string, format: string) => {
        const c = conv(id)
        exports.push({ conversationId: id, format })
        return { fileName: `${c.meta.title}.${format}`, content: format === 'json' ? JSON.stringify({ conversation: c.meta, entries: c.entries }) : `# ${c.meta.title}\n` }
      }),
      exportToFile: vi.fn(async (id: string, format: string) => {
        conv(id)
        if (!nextSave) return ''
        exports.push({ conversationId: id, format })
        return nextSave.replace(/\.\w+$/, `.${format}`)
      }),
      readToolResult: vi.fn(async (conversationId: string, messageId: string) => {
        const e = conv(conversationId).entries.find((x) => x.id === messageId)
        if (!e?.fullOutputPath) throw new BridgeError('E_NOT_FOUND', `the full output of message ${messageId} is no longer on disk`)
        return { conversationId, messageId, toolCallId: e.tool_call_id ?? '', toolName: e.tool_name ?? '', content: `FULL OUTPUT OF ${messageId}`, size: 20, truncated: false }
      }),
    },
    chat: {
      send: vi.fn(async (req: { conversationId: string; text: string; mode: string; agentId?: string; retry?: boolean; attachments?: { name: string; data: string }[] }) => {
        return writing(req.conversationId, () => {
          if (!settingsState.llmConfigured) throw new BridgeError('E_LLM_NOT_CONFIGURED', 'LLM not configured: llm.baseUrl: not set')
          if (streaming.has(req.conversationId)) throw new BridgeError('E_BUSY', 'a reply is already being generated in this conversation')
          const c = conv(req.conversationId)
          sent.push(req)
          streaming.add(req.conversationId)
          // A retry answers the newest user message again: its failures leave the context.
          if (req.retry) c.entries = c.entries.map((e) => (e.partType === 'error' ? { ...e, includeInContext: false } : e))
          else {
            const attachments = (req.attachments ?? []).map((a) => ({ name: a.name, kind: /\.(png|jpe?g|gif|webp)$/i.test(a.name) ? 'image' : 'text', mime: '', size: a.data.length, path: `@state/logs/tool-results/${req.conversationId}/att-${a.name}` }))
            c.entries.push({ type: 'msg', id: newId('msg'), createdAt: stamp(), role: 'user', content: req.text, mode: req.mode, attachments: attachments.length ? attachments : undefined, view: { kind: 'user', text: req.text } })
          }
          c.unfinished = false
          c.awaiting = false
          c.meta = { ...c.meta, lastActiveAt: stamp() }
        })
      }),
      edit: vi.fn(async (req: { conversationId: string; messageId: string; text: string; mode: string; agentId?: string }) => {
        return writing(req.conversationId, () => {
          if (streaming.has(req.conversationId)) throw new BridgeError('E_BUSY', 'a reply is already being generated in this conversation')
          const c = conv(req.conversationId)
          const i = c.entries.findIndex((e) => e.id === req.messageId)
          if (i < 0 || c.entries[i].role !== 'user') throw new BridgeError('E_INVALID_ARGUMENT', 'only a message you wrote can be edited or answered again')
          branchOps.push({ op: 'edit', conversationId: req.conversationId, messageId: req.messageId, text: req.text })
          branchAt(c, i - 1, 'branch', c.entries[i - 1]?.id ?? '')
          c.entries.push({ type: 'msg', id: newId('msg'), createdAt: stamp(), role: 'user', content: req.text, mode: req.mode, editOf: req.messageId, view: { kind: 'user', text: req.text } })
          streaming.add(req.conversationId)
        }, true)
      }),
      regenerate: vi.fn(async (req: { conversationId: string; messageId: string; mode: string; agentId?: string }) => {
        return writing(req.conversationId, () => {
          if (streaming.has(req.conversationId)) throw new BridgeError('E_BUSY', 'a reply is already being generated in this conversation')
          const c = conv(req.conversationId)
          let i = c.entries.findIndex((e) => e.id === req.messageId)
          while (i >= 0 && c.entries[i].role !== 'user') i--
          if (i < 0) throw new BridgeError('E_INVALID_ARGUMENT', 'there is no message of yours before this answer')
          branchOps.push({ op: 'regenerate', conversationId: req.conversationId, messageId: req.messageId })
          branchAt(c, i, 'branch', c.entries[i].id)
          streaming.add(req.conversationId)
        }, true)
      }),
      stop: vi.fn(async (id: string) => streaming.delete(id)),
      setMode: vi.fn(async (id: string, mode: string, agentId = '') => {
        const c = conv(id)
        c.meta = { ...c.meta, activeType: mode === 'run' ? 'workflow' : mode, selectedAgentId: agentId || c.meta.selectedAgentId }
        return metaOf(c)
      }),
      preview: vi.fn(async (id: string, mode: string) => preview(id, mode)),
      agents: vi.fn(async () => ({ packageId: '', agents: [] })),
      streaming: vi.fn(async () => [...streaming]),
      answerApproval: vi.fn(async (id: string, toolCallId: string, decision: string, reason = '') => {
        return writing(id, () => {
          const c = conv(id)
          const i = c.entries.findIndex((e) => e.tool_call_id === toolCallId && e.approval?.state === 'waiting')
          if (i < 0) throw new BridgeError('ENGINE_INVALID_REQUEST', `the call "${toolCallId}" does not wait for an approval: it was answered already`)
          approvals.push({ conversationId: id, toolCallId, decision, reason })
          const e = c.entries[i]
          const allowed = decision !== 'deny'
          c.entries[i] = {
            ...e,
            content: allowed ? '{"ok":true}' : `{"ok":false,"error":{"code":"E_APPROVAL_DENIED","message":"not run: the user denied this call"}}`,
            is_error: !allowed,
            approval: { ...e.approval!, state: allowed ? 'allowed' : 'denied', answer: decision, note: reason },
          }
        })
      }),
      approvalMode: vi.fn(async (id: string) => {
        conv(id)
        const mode = approvalModes.get(id)
        return mode ? { mode, source: 'conversation' } : { mode: 'ask', source: 'default' }
      }),
      setApprovalMode: vi.fn(async (id: string, mode: string) => {
        conv(id)
        if (!['read-only', 'ask', 'auto-edit', 'full-auto'].includes(mode)) throw new BridgeError('ENGINE_INVALID_REQUEST', `unknown approval mode "${mode}"`)
        approvalModes.set(id, mode)
        return { mode, source: 'conversation' }
      }),
      models: vi.fn(async () => endpointModels),
      selectModel: vi.fn(async (id: string, endpoint: string, model: string) => {
        const c = conv(id)
        const ep = endpointModels.find((e) => e.name === (endpoint || 'default'))
        if (!ep) throw new BridgeError('ENGINE_INVALID_REQUEST', `this conversation uses the endpoint "${endpoint}", which is no longer in the settings`)
        c.meta = { ...c.meta, endpoint: endpoint === 'default' ? '' : endpoint, model }
        return metaOf(c)
      }),
    },
    settings: {
      get: vi.fn(async () => view()),
      save: vi.fn(async (s: Settings) => {
        if (s.context.tokenBudget <= 0) throw new BridgeError('E_SETTINGS_INVALID', `invalid settings: context.tokenBudget: must be a positive integer, got ${s.context.tokenBudget}`)
        settingsState.settings = JSON.parse(JSON.stringify(s))
        settingsState.llmConfigured = !!s.llm.baseUrl && !!s.llm.model
        return view()
      }),
      testConnection: vi.fn(async (s: Settings) => {
        const models = opts.models ?? ['fake-model', 'fake-model-large']
        const base = { model: s.llm.model, baseUrl: s.llm.baseUrl, latencyMs: 3 }
        if (s.llm.baseUrl.includes('bad')) return { ...base, ok: false, code: 'LLM_NETWORK', message: 'LLM_NETWORK: connection refused [bad:1]', models: [], modelsError: 'connection refused' }
        if (!s.llm.model) return { ...base, ok: false, code: 'LLM_NOT_CONFIGURED', message: `The server answers and serves ${models.length} models: choose the model to use.`, models }
        return { ...base, ok: true, message: `Connected: ${s.llm.model} answered in 3ms`, models }
      }),
    },
    setup: {
      localServers: vi.fn(async () => opts.localServers ?? []),
      defaultProjectLocation: vi.fn(async () => opts.defaultLocation ?? '/home/test/CrewAgent Projects'),
    },
    projects: {
      recent: vi.fn(async () => recent.map((r) => ({ ...r, exists: folders.has(r.root) }))),
      forgetRecent: vi.fn(async (root: string) => {
        recent = recent.filter((r) => r.root !== root)
      }),
      open: vi.fn(async (root: string) => {
        if (!folders.has(root)) throw new BridgeError('E_PROJECT_NOT_FOUND', `project folder ${root} does not exist`)
        const from = opts.moved?.[root]
        if (from) throw new BridgeError('E_PROJECT_MOVED', `this looks like project "${base(from)}" moved from ${from} — use its conversations?`)
        current = info(root)
        touch(current)
        return current
      }),
      openMoved: vi.fn(async (root: string, keep: boolean) => {
        const from = opts.moved?.[root] ?? root
        delete opts.moved?.[root]
        current = {
          ...info(root),
          ...(keep ? { id: `id-${base(from)}` } : {}),
          notice: keep
            ? `project "${base(from)}" moved from ${from} to ${root}: its conversations came along`
            : `${root} is a new project; the conversations of project "${base(from)}" from ${from} stay with that project id`,
        }
        touch(current)
        return current
      }),
      create: vi.fn(async (parentDir: string, name: string) => {
        if (!name.trim() || name.includes('/')) throw new BridgeError('E_PROJECT_NAME_INVALID', `invalid project name "${name}"`)
        // the default location is made on demand, like backend/project
        if (parentDir === (opts.defaultLocation ?? '/home/test/CrewAgent Projects')) folders.add(parentDir)
        if (!folders.has(parentDir)) throw new BridgeError('E_PROJECT_NOT_FOUND', `folder ${parentDir} does not exist`)
        const root = `${parentDir}/${name}`
        if (folders.has(root)) throw new BridgeError('E_PROJECT_EXISTS', `${root} already exists`)
        folders.add(root)
        current = info(root)
        touch(current)
        return current
      }),
      current: vi.fn(async () => current),
      close: vi.fn(async () => {
        current = null
      }),
      chooseFolder: vi.fn(async () => nextFolder),
    },
    packages: {
      list: vi.fn(async () => ({
        packages: installed.map((p) => ({ ...p })),
        activePackageId: current?.activePackageId ?? '',
        demoInstalled: installed.some((p) => p.name === demoPackage.name),
        demoName: demoPackage.name,
      })),
      importPackage: vi.fn(async (path: string): Promise<PackageImport> => {
        if (path.includes('missing')) throw new BridgeError('PKG_OPEN', `cannot open package ${path}: no such file or directory`)
        if (path.includes('broken')) {
          return {
            ok: false,
            file: path,
            problems: [
              { file: 'bmad.json', pointer: '/version', message: 'must match the semver pattern' },
              { file: 'agents.json', pointer: '/agents', message: 'must have at least 1 item' },
            ],
            warnings: [],
          }
        }
        const name = base(path).replace(/\.(bmad|zip)$/, '')
        const pkg: InstalledPackage = { ...demoPackage, id: `${name}@1.0.0`, name, path: `packages/${name}@1.0.0` }
        const exists = installed.find((p) => p.id === pkg.id)
        if (exists) return { ok: false, file: path, exists: { ...exists }, problems: [], warnings: [] }
        installed.push(pkg)
        return { ok: true, file: path, package: pkg, problems: [], warnings: [] }
      }),
      importReplacing: vi.fn(async (path: string): Promise<PackageImport> => {
        const name = base(path).replace(/\.(bmad|zip)$/, '')
        const pkg: InstalledPackage = { ...demoPackage, id: `${name}@1.0.0`, name, path: `packages/${name}@1.0.0`, description: 'replaced' }
        const i = installed.findIndex((p) => p.id === pkg.id)
        if (i >= 0) installed[i] = pkg
        else installed.push(pkg)
        return { ok: true, file: path, package: pkg, problems: [], warnings: [] }
      }),
      chooseFile: vi.fn(async () => nextFile),
      setActive: vi.fn(async (id: string) => {
        if (!current) throw new BridgeError('E_NO_PROJECT', 'no project is open')
        if (!installed.some((p) => p.id === id)) throw new BridgeError('PKG_NOT_FOUND', `package "${id}" is not installed`)
        current = { ...current, activePackageId: id }
        return current
      }),
      active: vi.fn(async () => activeView()),
      remove: vi.fn(async (id: string) => {
        const i = installed.findIndex((p) => p.id === id)
        if (i < 0) throw new BridgeError('PKG_NOT_FOUND', `package "${id}" is not installed`)
        installed.splice(i, 1)
        if (current?.activePackageId === id) current = { ...current, activePackageId: '' }
        return current
      }),
      installDemo: vi.fn(async () => {
        if (!installed.some((p) => p.id === demoPackage.id)) installed.push({ ...demoPackage })
        return { ...demoPackage }
      }),
    },
    runs: {
      start: vi.fn(async (req: { conversationId: string; workflowId: string; agentId?: string; message?: string }) => {
        if (!current?.activePackageId) throw new BridgeError('RUN_NO_PACKAGE', 'this project has no active package')
        if (req.workflowId !== 'write-brief') throw new BridgeError('RUN_WORKFLOW_NOT_FOUND', `no workflow ${req.workflowId}`)
        const c = conv(req.conversationId)
        const t = stamp()
        const run: RunStatus = {
          runId: newId('run'),
          conversationId: req.conversationId,
          packageId: current.activePackageId,
          workflowId: req.workflowId,
          activeAgentId: req.agentId || 'analyst',
          phase: 'running',
          currentNodeId: '',
          stepsCompleted: [],
          artifacts: [],
          complete: false,
          nodes: demoNodes.map((n, i) => ({ ...n, status: i === 0 ? 'current' : 'pending' })),
          updatedAt: t,
          active: true,
        }
        runs.set(req.conversationId, run)
        streaming.add(req.conversationId)
        writing(req.conversationId, () => {
          c.entries.push({ type: 'evt', id: newId('evt'), createdAt: t, event: 'run_started', data: { runId: run.runId, workflowId: req.workflowId } })
          if (req.message) c.entries.push(runInput(newId('msg'), 'capture-idea', req.message, { createdAt: t, runId: run.runId }))
        })
        const { nodes: _n, complete: _c, active: _a, ...row } = run
        return { ...row, createdAt: t }
      }),
      answerWidget: vi.fn(async (runId: string, widgetId: string, answer: WidgetAnswer) => {
        const r = runOf(runId)
        if (r.pendingWidget?.widgetId !== widgetId) throw new BridgeError('RUN_NO_PENDING_WIDGET', 'this question was already answered or replaced by a newer one')
        answers.push({ runId, widgetId, answer })
        streaming.add(r.conversationId)
        runs.set(r.conversationId, { ...r, pendingWidget: undefined, phase: 'running', active: true })
        writing(r.conversationId, () =>
          conv(r.conversationId).entries.push(
            runInput(newId('msg'), r.currentNodeId, 'Answer', {
              createdAt: stamp(),
              runId,
              widget: { widgetId, type: r.pendingWidget?.type, answer },
              view: { kind: 'answer', answerTo: widgetId, text: 'Answer', forNode: r.currentNodeId },
            }),
          ),
        )
      }),
      conversationRun: vi.fn(async (id: string) => runs.get(id) ?? null),
      status: vi.fn(async (runId: string) => runOf(runId)),
      list: vi.fn(async () => [...runs.values()].map((r) => ({ ...r, createdAt: r.updatedAt }))),
      log: vi.fn(async (runId: string) => {
        runOf(runId)
        return { runId, lines: runLogs.get(runId) ?? [], truncated: false }
      }),
      readArtifact: vi.fn(async (path: string) => {
        if (path.startsWith('..') || path.startsWith('/')) throw new BridgeError('E_ARTIFACT_PATH', `"${path}" is not a path inside the project`)
        const content = files.get(path)
        if (content === undefined) throw new BridgeError('E_NOT_FOUND', `${path} does not exist in the project`)
        return { path, content, size: content.length, truncated: false, binary: false, modifiedAt: '2026-06-01T00:00:00Z' }
      }),
    },
    skills: skills.api,
    context: {
      // Compaction as backend/engine does it: everything before the newest
      // user message is marked compacted, then an event (with its view) and
      // the summary message are appended.
      compact: vi.fn(async (id: string, focus: string) => {
        return writing(id, () => {
          if (streaming.has(id)) throw new BridgeError('E_BUSY', 'a reply is already being generated in this conversation')
          const c = conv(id)
          compactions.push({ conversationId: id, focus })
          let last = -1
          c.entries.forEach((e, i) => {
            if (e.role === 'user' && !e.compacted) last = i
          })
          const ids = c.entries.slice(0, Math.max(0, last)).filter((e) => e.type === 'msg' && !e.compacted && e.view?.kind !== 'hidden')
          const result = { conversationId: id, compactedMessages: ids.length, usedTokensBefore: 5000, usedTokensAfter: ids.length ? 2000 : 5000, summaryId: '', totalBudget: 8000 }
          if (ids.length === 0) return result
          const pinned = c.entries.filter((e) => e.view?.pinned && ids.includes(e)).map((e) => ({ id: e.id, who: e.role === 'user' ? 'You' : 'Assistant', text: e.content ?? '' }))
          c.entries = c.entries.map((e) => (ids.includes(e) ? { ...e, compacted: true } : e))
          const summaryId = newId('summary')
          c.entries.push(
            {
              type: 'evt',
              id: newId('evt'),
              createdAt: stamp(),
              event: 'compaction',
              data: { count: ids.length, summary: summaryId, reason: 'manual', focus, strategy: 'key-messages' },
              view: {
                kind: 'event',
                compaction: { count: ids.length, manual: true, focus: focus.trim(), tokensBefore: 5000, tokensAfter: 2000, method: 'the key lines kept, without calling the model', summary: `**Your first message:**\n> ${ids[0].content ?? ''}`, pinned },
              },
            },
            { type: 'msg', id: summaryId, createdAt: stamp(), role: 'system', content: 'CONVERSATION_SUMMARY\n…', view: { kind: 'hidden' } },
          )
          return { ...result, summaryId }
        })
      }),
      pin: vi.fn(async (id: string, messageId: string) => {
        return writing(id, () => {
          const c = conv(id)
          if (!c.entries.some((e) => e.id === messageId && e.type === 'msg')) throw new BridgeError('E_NOT_FOUND', `message ${messageId} not found`)
          c.entries = c.entries.map((e) => (e.id === messageId ? { ...e, view: { ...(e.view ?? { kind: 'user' }), pinned: true } } : e))
          c.entries.push({ type: 'evt', id: newId('evt'), createdAt: stamp(), event: 'pin', ref_msg_id: messageId, view: { kind: 'event' } })
        })
      }),
      unpin: vi.fn(async (id: string, messageId: string) => {
        return writing(id, () => {
          const c = conv(id)
          c.entries = c.entries.map((e) => (e.id === messageId ? { ...e, view: { ...(e.view ?? { kind: 'user' }), pinned: false } } : e))
          c.entries.push({ type: 'evt', id: newId('evt'), createdAt: stamp(), event: 'unpin', ref_msg_id: messageId, view: { kind: 'event' } })
        })
      }),
      // The project's AGENTS.md, as backend/memory reads and writes it.
      instructions: vi.fn(async () => ({ ...instructions })),
      saveInstructions: vi.fn(async (text: string) => {
        if (text.length > 65536) throw new BridgeError('E_INVALID_ARGUMENT', 'the project instructions are larger than 64 KiB; shorten them')
        instructions = { ...instructions, exists: true, text, size: text.length }
        return { ...instructions }
      }),
    },
    events: {
      on: vi.fn(<K extends EventName>(name: K, handler: (payload: EventMap[K]) => void) => {
        const set = handlers.get(name) ?? new Set()
        handlers.set(name, set)
        set.add(handler as Handler)
        return () => {
          set.delete(handler as Handler)
        }
      }),
    },
  }

  return {
    bridge,
    skills,
    folders,
    convs,
    sent,
    approvals,
    approvalModes,
    endpointModels,
    branchOps,
    exports,
    /** Where the next save dialog saves (null: cancelled). */
    setNextSave(path: string | null) {
      nextSave = path
    },
    streaming,
    compactions,
    /** The desktop notifications shown. */
    notifications,
    installed,
    runs,
    runLogs,
    /** The MCP servers of the fake, by name. */
    mcpServers: mcp.servers,
    /** What the fake MCP servers offer the composer, and the forms they ask for. */
    mcpComposer: mcp.composer,
    /** The project's files by path (rewinds and undos change them). */
    files,
    answers,
    /** Appends entries to a conversation as the engine would. */
    append(id: string, ...entries: Entry[]) {
      writing(id, () => {
        const c = conv(id)
        c.entries.push(...entries.map(withView))
        c.meta = { ...c.meta, lastActiveAt: stamp() }
      })
    },
    /** Replaces entries (new versions of the same ids) as the engine would. */
    update(id: string, ...entries: Entry[]) {
      writing(id, () => {
        const c = conv(id)
        const next = new Map(entries.map((e) => [e.id, withView(e)]))
        c.entries = c.entries.map((e) => next.get(e.id) ?? e)
      })
    },
    /** Ends the reply in progress as the app does. */
    finish(id: string) {
      streaming.delete(id)
      handlers.get('conversation:changed')?.forEach((h) => h({ conversationId: id, kind: 'updated', streaming: false }))
      publish(id, conv(id).entries)
    },
    /** Publishes a conversation's state as the app does when it changes. */
    publish(id: string) {
      publish(id, conv(id).entries)
    },
    /** What the next native folder dialog returns (null: cancelled). */
    setNextFolder(dir: string | null) {
      nextFolder = dir
    },
    /** What the next native file dialog returns (null: cancelled). */
    setNextFile(path: string | null) {
      nextFile = path
    },
    /** Replaces a conversation's run as the Go side would after a turn. */
    setRun(r: RunStatus) {
      runs.set(r.conversationId, r)
    },
    emit<K extends EventName>(name: K, payload: EventMap[K]) {
      handlers.get(name)?.forEach((h) => h(payload))
    },
    listenerCount(name: EventName) {
      return handlers.get(name)?.size ?? 0
    },
  }
}
