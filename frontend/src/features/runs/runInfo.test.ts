import { callSummary, describeLogLine, nodeCounts, toolCalls, workflowTitle } from './runInfo'

describe('runInfo', () => {
  it('sums up a tool call by its path, patch fields or question', () => {
    expect(callSummary('fs.write', '{"content":"# long text","path":"@project/artifacts/a.md"}')).toBe('@project/artifacts/a.md')
    expect(callSummary('fs.apply_patch', '{"operation":"updateFrontmatter","path":"@state/workflow.md","update":{"currentNodeId":{"set":"end"},"stepsCompleted":{"append":["x"]}}}')).toBe(
      '@state/workflow.md (currentNodeId, stepsCompleted)',
    )
    expect(callSummary('ui.ask_user', '{"options":["a"],"prompt":"Which one?","type":"selection"}')).toBe('Which one?')
    expect(callSummary('fs.search', '{"pattern":"todo"}')).toBe('pattern: todo')
    expect(callSummary('fs.read', '{"path": "@pro')).toBe('{"path": "@pro')
  })

  it('describes log lines and picks the tool calls', () => {
    const lines = [
      { ts: 't', type: 'turn_start', text: 'The run started', raw: '{"ts":"t","type":"turn_start","intent":"start","input":true}' },
      { ts: 't', type: 'tool_call', tool: 'fs.read', ok: false, code: 'ENOENT', args: '{"path":"@project/x"}', text: 'Tried: read x (failed)', raw: '{}' },
      { ts: '', type: '', text: 'A line the app cannot read', raw: 'not json at all' },
    ]
    expect(lines.map(describeLogLine)).toEqual(['intent: start, input: true', 'fs.read @project/x → failed ENOENT', 'not json at all'])
    expect(toolCalls(lines).map((l) => l.tool)).toEqual(['fs.read'])
  })

  it('counts nodes and names workflows', () => {
    const run = { nodes: [{ id: 'a', type: 'step', status: 'completed' }, { id: 'b', type: 'end', status: 'current' }] } as never
    expect(nodeCounts(run)).toEqual({ done: 1, total: 2 })
    expect(workflowTitle(null, 'write-brief')).toBe('write-brief')
    expect(workflowTitle({ workflows: [{ id: 'write-brief', displayName: 'Write a project brief' }] } as never, 'write-brief')).toBe('Write a project brief')
  })
})
