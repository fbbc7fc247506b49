import { parseSkillCommand } from './skillCommand'

describe('parseSkillCommand', () => {
  it.each([
    ['/skill pptx', { kind: 'activate', name: 'pptx' }],
    ['  /skill   pptx  ', { kind: 'activate', name: 'pptx' }],
    ['/skill off pptx', { kind: 'deactivate', name: 'pptx' }],
    ['/skill\toff\npptx', { kind: 'deactivate', name: 'pptx' }],
    ['/skill', { kind: 'picker', off: false }],
    ['/skill   ', { kind: 'picker', off: false }],
    ['/skill off', { kind: 'picker', off: true }],
  ])('%j', (text, want) => {
    expect(parseSkillCommand(text)).toEqual(want)
  })

  it.each(['hello', '/skills', '/skillful idea', 'use /skill pptx', '', '/compact', '/ skill pptx'])('%j is an ordinary message', (text) => {
    expect(parseSkillCommand(text)).toBeNull()
  })

  it.each(['/skill pptx make a deck', '/skill off pptx now', '/skill off a b c'])('%j is explained, not sent', (text) => {
    const c = parseSkillCommand(text)
    expect(c?.kind).toBe('invalid')
    expect(c && 'message' in c && c.message).toContain('/skill NAME')
  })
})
