import { mcpToolName } from './mcp'

describe('mcpToolName', () => {
  it.each([
    ['mcp__everything__echo', { server: 'everything', tool: 'echo' }],
    ['mcp__files_local__read_text_file', { server: 'files_local', tool: 'read_text_file' }],
    ['mcp__gh__list__all', { server: 'gh', tool: 'list__all' }],
    ['fs.read', null],
    ['mcp__', null],
    ['mcp__server', null],
    ['mcp____tool', null],
    ['mcp__server__', null],
  ])('%s', (name, want) => {
    expect(mcpToolName(name)).toEqual(want)
  })
})
