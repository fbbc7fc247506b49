// The backend's words in both languages: every error code and every
// template of the backend has English (generated from backend/errs) and
// Chinese words with the same placeholders, and the window renders them
// with their values, falling back to the backend's English text.
import { Codes, ReplacedCodes } from '../bridge/codes.gen'
import { toBridgeError } from '../bridge/errors'
import { applyLanguage } from '.'
import { backendDetail, backendText, problemText, saidText, sentence } from './backend'
import en from './locales/backend.en.gen.json'
import zhCN from './locales/backend.zh-CN.json'
import { flatten, type Tree } from '../test/catalogue'

const vars = (s: string) => [...new Set([...s.matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)].map((m) => m[1]))].sort().join()

describe('the backend catalogues', () => {
  it('have English and Chinese words for every code of the error catalogue', () => {
    const codes = Object.values(Codes)
    expect(codes.length).toBeGreaterThan(90)
    expect(codes.filter((c) => !(en.codes as Record<string, string>)[c]?.trim())).toEqual([])
    expect(codes.filter((c) => !(zhCN.codes as Record<string, string>)[c]?.trim())).toEqual([])
    expect(Object.keys(zhCN.codes).filter((c) => !codes.includes(c as never))).toEqual([])
  })

  it('have the same templates with the same placeholders in English and Chinese', () => {
    const a = flatten(en.msg as Tree)
    const b = flatten(zhCN.msg as Tree)
    expect([...a.keys()].filter((k) => !b.has(k))).toEqual([])
    expect([...b.keys()].filter((k) => !a.has(k))).toEqual([])
    expect([...a].filter(([k, v]) => vars(v) !== vars(b.get(k) ?? '')).map(([k]) => k)).toEqual([])
    // No English sentence left in the Chinese words (commands to type are kept).
    const english = (v: string) => /[a-z]{4,} [a-z]{3,} [a-z]{3,}/.test(v.replace(/\{\{[^}]*\}\}/g, '').replace(/crewagent [\w -]+/g, ''))
    expect([...b.values()].filter((v) => !v.trim() || english(v))).toEqual([])
  })
})

describe('backendText', () => {
  afterEach(() => applyLanguage('en'))

  it.each([
    ['en', { code: 'E_PROJECT_NOT_FOUND', message: 'folder /p does not exist', key: 'project.notFound', params: { path: '/p' } }, 'folder /p does not exist', ''],
    ['zh-CN', { code: 'E_PROJECT_NOT_FOUND', message: 'folder /p does not exist', key: 'project.notFound', params: { path: '/p' } }, '文件夹 /p 不存在', ''],
    // Without a template: English says the backend's text, Chinese the code's sentence with the text as the detail.
    ['en', { code: 'E_PROJECT_IO', message: 'cannot write /p/x: disk full' }, 'cannot write /p/x: disk full', ''],
    ['zh-CN', { code: 'E_PROJECT_IO', message: 'cannot write /p/x: disk full' }, '无法读取或写入项目文件。', 'cannot write /p/x: disk full'],
    // A code the catalogue does not know, a key it does not know: the backend's text.
    ['zh-CN', { code: 'E_FROM_THE_FUTURE', message: 'something new' }, 'something new', ''],
    ['zh-CN', { code: 'E_FROM_THE_FUTURE', message: 'something new', key: 'future.key', params: { a: 1 } }, 'something new', ''],
    ['zh-CN', { code: 'E_PROJECT_IO', message: 'cannot write', key: 'future.key' }, '无法读取或写入项目文件。', 'cannot write'],
    // Values that look like markup stay text (React escapes them once).
    ['zh-CN', { code: 'E_PROJECT_NOT_DIR', message: '<b> is not a folder', key: 'project.notDir', params: { path: '<b>&' } }, '<b>& 不是文件夹', ''],
  ])('in %s says %j', (lang, words, text, detail) => {
    applyLanguage(lang as 'en' | 'zh-CN')
    expect(backendText(words)).toBe(text)
    expect(backendDetail(words)).toBe(detail)
  })

  it('says a failed call as it came over the wire in the language in use', () => {
    const wire = new Error('E_PROJECT_MOVED: this looks like project "notes" moved from /old — use its conversations?\x1e{"key":"project.moved","params":{"name":"notes","from":"/old"}}')
    const e = toBridgeError(wire)
    expect(backendText(e)).toBe('this looks like project "notes" moved from /old — use its conversations?')
    applyLanguage('zh-CN')
    expect(backendText(e)).toBe('这看起来是从 /old 移动过来的项目“notes”— 要使用它的对话吗？')
    // A replaced code reads as the code that replaced it.
    expect(backendText(toBridgeError(new Error(`${Object.keys(ReplacedCodes)[0]}: busy`)))).toBe(zhCN.codes[ReplacedCodes[Object.keys(ReplacedCodes)[0]] as keyof typeof zhCN.codes])
  })
})

describe('problemText', () => {
  afterEach(() => applyLanguage('en'))

  it.each([
    ['en', { title: 'Too many requests for now', advice: 'The server asks to slow down: try again in 20 seconds.', titleKey: 'problem.rateLimit.title', adviceKey: 'problem.rateLimitSeconds.advice', params: { n: 20 } }, 'Too many requests for now', 'The server asks to slow down: try again in 20 seconds.'],
    ['zh-CN', { title: 'Too many requests for now', advice: 'x', titleKey: 'problem.rateLimit.title', adviceKey: 'problem.rateLimitSeconds.advice', params: { n: 20 } }, '请求过于频繁', '服务器要求降低请求频率：请 20 秒后再试。'],
    ['zh-CN', { title: "Can't reach the model server", advice: 'x', titleKey: 'problem.unreachable.title', adviceKey: 'problem.atProviderRefused.advice', params: { where: '127.0.0.1:1' } }, '无法连接模型服务器', '127.0.0.1:1 没有响应。请确认服务器正在运行，并检查设置中的地址是否正确。'],
    // From an older backend, without keys: its English words.
    ['zh-CN', { title: 'The answer failed', advice: 'The details below say why.' }, 'The answer failed', 'The details below say why.'],
  ])('in %s says %j', (lang, p, title, advice) => {
    applyLanguage(lang as 'en' | 'zh-CN')
    expect(problemText(p)).toEqual({ title, advice })
  })
})

describe('words about a run', () => {
  afterEach(() => applyLanguage('en'))
  // What the backend sends for a step: a list of phrases, one failed, naming
  // targets by their own words and a node by its title.
  const summary = {
    key: 'run.call.all',
    params: {
      list: [
        { key: 'run.call.read', params: { what: { key: 'run.target.stepFile' } } },
        { key: 'run.call.write', params: { what: 'project-brief.md' } },
        { key: 'run.call.tried', params: { list: [{ key: 'run.call.movedTo', params: { node: '“Wrap up”' } }] } },
      ],
    },
  }
  const title = { key: 'run.step.numbered', params: { n: 2, title: { key: 'run.step.untitled' } } }

  it.each([
    ['en', "read the step's instructions, wrote project-brief.md, tried: moved to “Wrap up” (failed)", 'Step 2 · Run step'],
    ['zh-CN', '读取了该步骤的说明，写入了 project-brief.md，尝试转到了“Wrap up”（失败）', '第 2 步 · 运行步骤'],
  ])('says a step in %s', (lang, words, heading) => {
    applyLanguage(lang as 'en' | 'zh-CN')
    expect(saidText(summary, 'the English text')).toBe(words)
    expect(saidText(title, 'the English title')).toBe(heading)
  })

  it('says the backend text without words, or with words it does not know', () => {
    applyLanguage('zh-CN')
    expect(saidText(undefined, 'Step 1 · Capture')).toBe('Step 1 · Capture')
    expect(saidText({ key: 'run.call.fromTheFuture' }, 'did something new')).toBe('did something new')
    expect(sentence(saidText({ key: 'run.log.turnEndedRequests', params: { phase: { key: 'run.phase.waitingUser' }, n: 3 } }, ''))).toBe('本轮结束：等待你的回复（3 次模型请求）')
    applyLanguage('en')
    expect(sentence(saidText({ key: 'run.call.read', params: { what: { key: 'run.target.state' } } }, ''))).toBe("Read the run's state")
  })
})

describe('values among Chinese words', () => {
  afterEach(() => applyLanguage('en'))
  it.each([
    ['a Latin value between Chinese words is set apart', { key: 'run.call.usedMCP', params: { tool: 'search', server: 'github' } }, '使用了 github 的 search'],
    ['Chinese values are not', { key: 'run.call.usedMCP', params: { tool: '搜索', server: '仓库' } }, '使用了仓库的搜索'],
    ['punctuation needs no space', { key: 'pkg.missing', params: { file: 'bmad.json' } }, '包中不存在 bmad.json'],
    ['a value that is a number', { key: 'problem.rateLimitSeconds.advice', params: { n: 5 } }, '服务器要求降低请求频率：请 5 秒后再试。'],
  ])('%s', (_, said, want) => {
    applyLanguage('zh-CN')
    expect(saidText(said, '')).toBe(want)
    expect(saidText(said, '')).not.toContain('\u2060')
  })
})

describe('settings out of range', () => {
  afterEach(() => applyLanguage('en'))
  // A warning of Settings as the backend sends it: the problem and what is used meanwhile.
  const warning = {
    message: 'must be a positive integer, got -5: the default of 128000 tokens is used until it is corrected',
    key: 'settings.warnInstead',
    params: { problem: { key: 'settings.positive', params: { got: -5 } }, instead: { key: 'settings.instead.defaultTokens', params: { n: 128000 } } },
  }
  it.each([
    ['en', warning.message],
    ['zh-CN', '必须是正整数，实际为 -5：在修正之前，使用默认值 128000 个 token'],
  ])('in %s', (lang, want) => {
    applyLanguage(lang as 'en' | 'zh-CN')
    expect(backendText(warning)).toBe(want)
  })
})
