import { BridgeError, call, toBridgeError } from './errors'

describe('toBridgeError', () => {
  it.each([
    ['a coded Error from a bound method', new Error('E_PROJECT_NOT_FOUND: /x does not exist'), 'E_PROJECT_NOT_FOUND', '/x does not exist'],
    ['a coded string', 'E_NO_PROJECT: open a project first', 'E_NO_PROJECT', 'open a project first'],
    ['a multi-line message', new Error('E_INTERNAL: line one\nline two'), 'E_INTERNAL', 'line one\nline two'],
    ['an object with code and message', { code: 'E_DIALOG', message: 'failed' }, 'E_DIALOG', 'failed'],
    ['an uncoded error', new Error('something broke'), 'E_UNKNOWN', 'something broke'],
    ['a lower-case prefix is not a code', new Error('note: this is text'), 'E_UNKNOWN', 'note: this is text'],
    ['a non-error value', 42, 'E_UNKNOWN', '42'],
    ['a replaced code', new Error('ENGINE_CONVERSATION_BUSY: a reply runs'), 'E_BUSY', 'a reply runs'],
    ['a replaced code in an object', { code: 'LLM_NOT_CONFIGURED', message: 'no model' }, 'E_LLM_NOT_CONFIGURED', 'no model'],
  ])('parses %s', (_, raw, code, message) => {
    const e = toBridgeError(raw)
    expect(e).toBeInstanceOf(BridgeError)
    expect(e.code).toBe(code)
    expect(e.message).toBe(message)
  })

  it.each([
    ['with its template', new Error('E_PROJECT_NOT_FOUND: folder /p does not exist\x1e{"key":"project.notFound","params":{"path":"/p"}}'), 'project.notFound', { path: '/p' }],
    ['a template without values', 'E_NO_PROJECT: no project is open\x1e{"key":"app.noProject"}', 'app.noProject', undefined],
    ['an object with a template', { code: 'E_NO_PROJECT', message: 'no project is open', key: 'app.noProject', params: { a: 1 } }, 'app.noProject', { a: 1 }],
    ['a template that is not JSON: the message only', new Error('E_NO_PROJECT: no project is open\x1e{broken'), undefined, undefined],
  ])('keeps the key and values of a message %s', (_, raw, key, params) => {
    const e = toBridgeError(raw)
    expect(e.message).not.toContain('\x1e')
    expect(e.message).toMatch(/does not exist|no project is open/)
    expect(e.key).toBe(key)
    expect(e.params).toEqual(params)
  })

  it('call passes values through and converts rejections', async () => {
    await expect(call(async () => 7)).resolves.toBe(7)
    await expect(call(() => Promise.reject(new Error('E_PROJECT_EXISTS: taken')))).rejects.toMatchObject({
      code: 'E_PROJECT_EXISTS',
      message: 'taken',
    })
  })
})
