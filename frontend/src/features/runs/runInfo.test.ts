import { nodeCounts, nodeTitle, workflowTitle } from './runInfo'

describe('runInfo', () => {
  it('counts nodes and names workflows', () => {
    const run = { nodes: [{ id: 'a', type: 'step', status: 'completed' }, { id: 'b', type: 'end', status: 'current' }] } as never
    expect(nodeCounts(run)).toEqual({ done: 1, total: 2 })
    expect(workflowTitle(null, 'write-brief')).toBe('write-brief')
    expect(workflowTitle({ workflows: [{ id: 'write-brief', displayName: 'Write a project brief' }] } as never, 'write-brief')).toBe('Write a project brief')
  })

  it('names nodes by their title, or their id in words', () => {
    expect(nodeTitle({ id: 'capture-idea', title: 'Capture the idea' })).toBe('Capture the idea')
    expect(nodeTitle({ id: 'clarify_idea.v2', title: '' })).toBe('Clarify idea v2')
    expect(nodeTitle({ id: '--', title: undefined })).toBe('Untitled step')
  })
})
