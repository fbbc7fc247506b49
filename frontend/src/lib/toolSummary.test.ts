import { applyLanguage } from '../i18n'
import { lineCount, quotedResult, screenSummary, shortPath, toolSummary, toolTitle } from './toolSummary'

const j = (v: unknown) => JSON.stringify(v)
/** The internal names, codes and JSON no summary may show. */
const internal = /E_[A-Z_]+|\b(fs|conv|skill|shell|ui)\.[a-z_]+|\{"|mcp__/

describe('tool summaries', () => {
  afterEach(() => applyLanguage('en'))

  it.each([
    ['a read with its lines', 'fs.read', { path: '@project/src/app.go' }, { ok: true, path: 'src/app.go', content: 'x', totalLines: 212 }, 'Read `src/app.go` (212 lines)'],
    ['a read of one line', 'fs.read', { path: 'a.txt' }, { ok: true, totalLines: 1 }, 'Read `a.txt` (1 line)'],
    ['a read of a range', 'fs.read', { path: 'a.go', startLine: 10 }, { ok: true, totalLines: 90, startLine: 10, endLine: 40 }, 'Read `a.go` (lines 10–40 of 90)'],
    ['a read not yet done', 'fs.read', { path: 'a.go' }, undefined, 'Read `a.go`'],
    ['a binary read', 'fs.read', { path: 'logo.png' }, { ok: true, binary: true, totalLines: 0 }, 'Read `logo.png` (not text)'],
    ['a listing of the project', 'fs.list', { path: '@project' }, { ok: true, entries: [{}, {}, {}], total: 3 }, 'Listed 3 files'],
    ['a listing of a folder', 'fs.list', { path: 'src' }, { ok: true, total: 1 }, 'Listed 1 file in `src`'],
    ['a search', 'fs.search', { pattern: 'TODO' }, { ok: true, matchCount: 4, filesScanned: 12 }, 'Found `TODO` 4 times (12 files searched)'],
    ['a new file', 'fs.write', { path: 'notes.md', content: 'a\n'.repeat(12) }, { ok: true, created: true }, 'Created `notes.md` (+12 −0)'],
    ['a rewritten file', 'fs.write', { path: 'notes.md', content: 'a\nb' }, { ok: true, created: false }, 'Wrote `notes.md` (2 lines)'],
    ['a frontmatter edit', 'fs.apply_patch', { path: 'spec.md', operation: 'updateFrontmatter' }, { ok: true, updatedKeys: ['status'] }, 'Edited `spec.md`: status'],
    ["the run's progress", 'fs.apply_patch', { path: '@state/workflow.md' }, { ok: true }, "Updated the run's progress"],
    ['a command', 'shell.run', { command: 'go test ./...' }, { ok: true, exitCode: 0, output: 'ok' }, 'Ran `go test ./...` (exit 0)'],
    ['a sub-conversation', 'conv.create', { title: 'Review the plan', user_instruction: 'Read it' }, { ok: true, status: 'completed' }, 'Handed a task to a new conversation: “Review the plan”'],
    ['a message to a conversation', 'conv.send', { conversation_id: 'c-1', text: 'Any news?' }, undefined, 'Asked another conversation: “Any news?”'],
    ['a skill', 'skill.activate', { name: 'pdf' }, { ok: true }, 'Started using the skill “pdf”'],
    ['an MCP tool', 'mcp__github__create_issue', { title: 'Bug' }, { content: [] }, 'Used create_issue of github with title `Bug`'],
    ['a resource', 'mcp__read_resource', { server: 'docs', uri: 'file:///a.md' }, undefined, 'Read `file:///a.md`'],
    ['a failed read', 'fs.read', { path: 'gone.txt' }, { ok: false, error: { code: 'E_NOT_FOUND', message: 'no such file' } }, 'Read `gone.txt`'],
    ["the step's file", 'fs.read', { path: '@pkg/flows/steps/capture.md' }, { ok: true, totalLines: 55 }, "Read the step's instructions (55 lines)"],
    ['cut arguments', 'fs.write', '{"path": "a.m', undefined, 'Wrote a file'],
  ])('says %s', (_, name, args, result, want) => {
    const a = typeof args === 'string' ? args : j(args)
    const failed = !!result && (result as { ok?: boolean }).ok === false
    const got = toolSummary(name, a, result ? j(result) : undefined, failed)
    expect(got).toBe(want)
    expect(got).not.toMatch(internal)
  })

  it.each([
    ['fs.read', 'Read file', '读取文件'],
    ['fs_read', 'Read file', '读取文件'],
    ['fs_apply_patch', 'Edit file', '编辑文件'],
    ['conv.create', 'New conversation', '新对话'],
    ['skill.activate', 'Use a skill', '启用技能'],
    ['mcp__github__create_issue', 'github › create_issue', 'github › create_issue'],
    ['mcp__read_resource', 'Read a resource', '读取资源'],
  ])('names %s', (name, en, zh) => {
    expect(toolTitle(name)).toBe(en)
    applyLanguage('zh-CN')
    expect(toolTitle(name)).toBe(zh)
  })

  it('speaks Chinese with the same values', () => {
    applyLanguage('zh-CN')
    expect(toolSummary('fs.read', j({ path: 'src/app.go' }), j({ ok: true, totalLines: 212 }))).toBe('读取了 `src/app.go`（212 行）')
    expect(toolSummary('fs.list', j({}), j({ ok: true, total: 3 }))).toBe('列出了 3 个文件')
    expect(toolSummary('fs.write', j({ path: 'notes.md', content: 'x\n' }), j({ ok: true, created: true }))).toBe('新建了 `notes.md`（+1 −0）')
  })

  it('names the paths a person knows', () => {
    expect(shortPath('@project/src/a.go')).toBe('src/a.go')
    expect(shortPath('@project')).toBe('')
    expect(shortPath('@state/logs/tool-results/x.json')).toBe('a saved tool output')
    expect(shortPath('@pkg/flows/steps/plan.md')).toBe("the step's instructions")
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb')]).toEqual([0, 1, 1, 2])
  })

  it('says who wrote each line of a summary in words, a quoted result without its JSON', () => {
    const md = '**Facts, files and numbers**\n\n- **You:** the budget\n- **Assistant:** Here is **bold**\n- **fs.list result:** "size":269},{"name":"big.txt", … "size":76889},{"name":"notes.md",\n- **Tool result:** plain words\n- **Note:** kept'
    expect(screenSummary(md)).toBe(
      '**Facts, files and numbers**\n\n- **You:** the budget\n- **Assistant:** Here is **bold**\n- **Result of List files:** big.txt, notes.md …\n- **Tool result:** plain words\n- **Note:** kept',
    )
    expect(screenSummary('- **Assistant:** calls fs.list @project\n- **Assistant:** calls fs.read')).toBe('- **Assistant:** → List files `@project`\n- **Assistant:** → Read file')
    expect(quotedResult('{"ok":true}')).toBe('(data from a tool)')
    applyLanguage('zh-CN')
    expect(screenSummary('- **fs.read result:** port 8080')).toBe('- **读取文件 的结果:** port 8080')
  })
})
