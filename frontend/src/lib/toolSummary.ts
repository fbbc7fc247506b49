/** What a tool call is and did, in the user's words: a display name for
 * the card's heading ("Read file", "github › create_issue") and a one-line
 * summary ("Read `src/app.go` (212 lines)", "Listed 3 files"). The tools'
 * own names, call ids and JSON stay under the card's Details. Paths and
 * other quoted values are between backticks (the card shows them as code). */
import { t } from '../i18n'
import { mcpToolName } from './mcp'

/** The built-in tools by the name the log keeps; the key of each in the
 * catalogues (tool.name.*, tool.sum.*). */
const builtIn: Record<string, string> = {
  'fs.read': 'read',
  'fs.list': 'list',
  'fs.search': 'search',
  'fs.write': 'write',
  'fs.apply_patch': 'patch',
  'shell.run': 'shell',
  'ui.ask_user': 'ask',
  'conv.create': 'convCreate',
  'conv.send': 'convSend',
  'conv.list': 'convList',
  'conv.history': 'convHistory',
  'conv.destroy': 'convDestroy',
  'skill.activate': 'skillOn',
  'skill.deactivate': 'skillOff',
  mcp__read_resource: 'resource',
}

/** The name a request sends (fs_read) back to the name the log keeps
 * (fs.read), when it is a built-in tool's. */
function fromWire(name: string): string {
  if (builtIn[name]) return name
  const dotted = name.replace('_', '.')
  return builtIn[dotted] ? dotted : name
}

/** The heading of a tool call: a built-in tool's display name, an MCP
 * tool as "server › tool", any other tool by its own name. Accepts the
 * log's names and the request's (fs_read). */
export function toolTitle(name: string): string {
  const n = fromWire(name)
  const key = builtIn[n]
  if (key) return t(`tool.name.${key}`)
  const mcp = mcpToolName(n)
  if (mcp) return `${mcp.server} › ${mcp.tool}`
  return n
}

/** A path of a tool call as the user knows it: project files relative to
 * the project, the run's own files by what they are. */
export function shortPath(p: string): string {
  const s = p.trim()
  if (s === '' || s === '@project' || s === '@project/' || s === '.') return ''
  if (s === '@state/workflow.md') return t('tool.path.runState')
  if (s.startsWith('@state/logs/tool-results')) return t('tool.path.savedOutput')
  if (s.startsWith('@pkg/') && s.includes('/steps/')) return t('tool.path.stepFile')
  if (s.startsWith('@project/')) return s.slice('@project/'.length)
  return s
}

function parse(text: string | undefined): Record<string, unknown> {
  if (!text) return {}
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** s on one line, at most n characters. */
function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat
}

/** A value between backticks (none inside it). */
const code = (s: string) => `\`${s.replace(/`/g, "'")}\``

/** Lines of a text: a trailing newline ends the last line, it starts none. */
export function lineCount(s: string): number {
  if (!s) return 0
  const n = s.split('\n').length
  return s.endsWith('\n') ? n - 1 : n
}

/** What a tool call did, in one line. output is the result the model read
 * (its JSON), when there is one; failed: the result is an error (the
 * summary then says what was tried, the card's status says it failed). */
export function toolSummary(name: string, args: string, output?: string, failed = false): string {
  const n = fromWire(name)
  const a = parse(args)
  const r = failed ? {} : parse(output)
  const done = !!output && !failed && r.ok !== false
  const path = shortPath(str(a.path))
  // the run's own files are said in words, other paths as code
  const target = !path ? '' : path === str(a.path) || path === str(a.path).replace(/^@project\//, '') ? code(path) : path
  switch (builtIn[n]) {
    case 'read': {
      const total = num(r.totalLines)
      const from = num(r.startLine)
      const to = num(r.endLine)
      if (!target) return t('tool.sum.readAny')
      if (done && r.binary === true) return t('tool.sum.readBinary', { path: target })
      if (done && total !== undefined && from !== undefined && to !== undefined && (from > 1 || to < total)) {
        return t('tool.sum.readRange', { path: target, from, to, total })
      }
      if (done && total !== undefined) return t('tool.sum.readLines', { path: target, count: total })
      return t('tool.sum.read', { path: target })
    }
    case 'list': {
      const total = num(r.total) ?? (Array.isArray(r.entries) ? r.entries.length : undefined)
      if (done && total !== undefined) {
        return target ? t('tool.sum.listedIn', { count: total, path: target }) : t('tool.sum.listed', { count: total })
      }
      return target ? t('tool.sum.listIn', { path: target }) : t('tool.sum.list')
    }
    case 'search': {
      const pattern = code(clip(str(a.pattern), 60))
      const count = num(r.matchCount)
      if (done && count !== undefined) return t('tool.sum.found', { count, pattern, files: num(r.filesScanned) ?? 0 })
      return t('tool.sum.search', { pattern })
    }
    case 'write': {
      const plus = lineCount(str(a.content))
      if (!target) return t('tool.sum.writeAny')
      if (typeof a.content !== 'string') return t('tool.sum.write', { path: target })
      if (done && r.created === true) return t('tool.sum.created', { path: target, plus })
      if (done) return t('tool.sum.wrote', { path: target, plus })
      return t('tool.sum.write', { path: target })
    }
    case 'patch': {
      if (str(a.path) === '@state/workflow.md') return t('tool.sum.runState')
      const keys = Array.isArray(r.updatedKeys) ? r.updatedKeys.filter((k): k is string => typeof k === 'string') : []
      if (done && keys.length > 0 && target) return t('tool.sum.patchedKeys', { path: target, keys: keys.slice(0, 4).join(', '), count: keys.length })
      return target ? t('tool.sum.patch', { path: target }) : t('tool.sum.patchAny')
    }
    case 'shell': {
      const command = code(clip(str(a.command), 80))
      const exit = num(r.exitCode)
      if (done && exit !== undefined) return t('tool.sum.ran', { command, exit })
      return t('tool.sum.run', { command })
    }
    case 'ask': {
      const q = clip(str(a.question) || str(a.title) || str(a.prompt), 80)
      return q ? t('tool.sum.askQ', { q }) : t('tool.sum.ask')
    }
    case 'convCreate': {
      const title = clip(str(a.title) || str(a.user_instruction), 60)
      return title ? t('tool.sum.convCreateT', { title }) : t('tool.sum.convCreate')
    }
    case 'convSend': {
      const text = clip(str(a.text), 60)
      return text ? t('tool.sum.convSendT', { text }) : t('tool.sum.convSend')
    }
    case 'convList': {
      const list = Array.isArray(r.conversations) ? r.conversations.length : undefined
      return done && list !== undefined ? t('tool.sum.convListed', { count: list }) : t('tool.sum.convList')
    }
    case 'convHistory':
      return t('tool.sum.convHistory')
    case 'convDestroy':
      return t('tool.sum.convDestroy')
    case 'skillOn':
      return str(a.name) ? t('tool.sum.skillOnN', { name: str(a.name) }) : t('tool.sum.skillOn')
    case 'skillOff':
      return str(a.name) ? t('tool.sum.skillOffN', { name: str(a.name) }) : t('tool.sum.skillOff')
    case 'resource': {
      const uri = str(a.uri)
      return uri ? t('tool.sum.resourceU', { uri: code(clip(uri, 80)) }) : t('tool.sum.resource')
    }
  }
  const mcp = mcpToolName(n)
  const shown = Object.entries(a)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .slice(0, 2)
    .map(([k, v]) => `${k} ${code(clip(String(v), 40))}`)
    .join(', ')
  if (mcp) return shown ? t('tool.sum.mcpWith', { tool: mcp.tool, server: mcp.server, args: shown }) : t('tool.sum.mcp', { tool: mcp.tool, server: mcp.server })
  return shown ? t('tool.sum.otherWith', { args: shown }) : t('tool.sum.other')
}

/** Splits a summary into text and `code` runs (odd indexes are code). */
export function codeRuns(s: string): string[] {
  return s.split('`')
}

/** The text of a tool result quoted in a summary, for a person: JSON said
 * by its string values ("big.txt, notes.md"), other text as it is. */
export function quotedResult(body: string): string {
  if (!body.includes('{"') && !/"\s*:/.test(body)) return body
  const values = [...body.matchAll(/"(?:[^"\\]|\\.)*"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).filter((v) => v.trim() !== '')
  if (values.length === 0) return t('insp.toolData')
  return values.join(', ') + (body.includes('…') ? ' …' : '')
}

/** A summary as the screen shows it (the runtime's Markdown, whose lines
 * say who wrote them: "**You:**", "**fs.read result:**", and the calls the
 * model made: "**Assistant:** calls fs.list @project") with those words in
 * the user's language and each tool by its display name. */
export function screenSummary(md: string): string {
  return md
    .split('\n')
    .map((line) => {
      const m = /^(\s*[-*] )\*\*([^*]+?):\*\*(.*)$/.exec(line)
      if (!m) return line
      const [, bullet, who, rest] = m
      const tool = /^(\S+) result$/.exec(who)
      let label: string
      if (who === 'You') label = t('who.user')
      else if (who === 'Assistant') label = t('who.assistant')
      else if (who === 'Tool result') label = t('who.tool')
      else if (tool) label = t('who.toolOf', { tool: toolTitle(tool[1]) })
      else return line
      // the digest's line of a call: "calls fs.list @project"
      const call = who === 'Assistant' ? /^\s*calls (\S+)(?:\s+(.+))?$/.exec(rest) : null
      if (call) return `${bullet}**${label}:** → ${toolTitle(call[1])}${call[2] ? ` ${code(call[2].trim())}` : ''}`
      const body = who === 'Tool result' || tool ? ` ${quotedResult(rest.trim())}` : rest
      return `${bullet}**${label}:**${body}`
    })
    .join('\n')
}
