import { formContent, formFields, initialValues } from './elicitForm'

// The form server-everything's trigger-elicitation-request asks for (the
// shapes of the MCP specification's elicitation schemas), shortened.
const schema = {
  type: 'object',
  properties: {
    name: { title: 'String', type: 'string', description: 'Your full, legal name' },
    check: { title: 'Boolean', type: 'boolean' },
    email: { type: 'string', format: 'email' },
    integer: { title: 'Integer', type: 'integer', minimum: 1, maximum: 100, default: 42 },
    number: { type: 'number', minimum: 0, maximum: 1000, default: 3.14 },
    friend: { type: 'string', enum: ['Monica', 'Rachel'], default: 'Monica' },
    instruments: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['Guitar', 'Piano', 'Drums'] }, default: ['Guitar'] },
    hero: { type: 'string', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Wonder Woman' }] },
    fish: { type: 'array', items: { anyOf: [{ const: 'fish-1', title: 'Tuna' }] } },
    pet: { type: 'string', enum: ['pet-1', 'pet-2'], enumNames: ['Cats', 'Dogs'] },
    nested: { type: 'object' },
  },
  required: ['name'],
}

describe('elicitation forms', () => {
  const fields = formFields(schema)

  it('reads each kind of field of the schema, in order, leaving out what a form cannot hold', () => {
    expect(fields.map((f) => [f.name, f.kind, f.label, f.required])).toEqual([
      ['name', 'string', 'String', true],
      ['check', 'boolean', 'Boolean', false],
      ['email', 'string', 'email', false],
      ['integer', 'integer', 'Integer', false],
      ['number', 'number', 'number', false],
      ['friend', 'choice', 'friend', false],
      ['instruments', 'choices', 'instruments', false],
      ['hero', 'choice', 'hero', false],
      ['fish', 'choices', 'fish', false],
      ['pet', 'choice', 'pet', false],
    ])
    expect(fields.find((f) => f.name === 'hero')!.choices).toEqual([
      { value: 'hero-1', label: 'Superman' },
      { value: 'hero-2', label: 'Wonder Woman' },
    ])
    expect(fields.find((f) => f.name === 'pet')!.choices!.map((c) => c.label)).toEqual(['Cats', 'Dogs'])
    expect(initialValues(fields)).toMatchObject({ name: '', check: false, integer: '42', number: '3.14', friend: 'Monica', instruments: ['Guitar'], hero: '' })
    expect(formFields(undefined)).toEqual([])
    const late = formFields({ properties: { a: { type: 'string' }, b: { type: 'boolean' }, c: { type: 'number' } }, required: ['c', 'b'] })
    expect(late.map((f) => f.name)).toEqual(['b', 'c', 'a'])
  })

  it.each([
    ['the defaults and a name', { name: ' Ada ' }, { name: 'Ada', check: false, integer: 42, number: 3.14, friend: 'Monica', instruments: ['Guitar'] }, []],
    ['no name', {}, null, ['name elicit.required']],
    ['numbers out of range or of the wrong kind', { name: 'a', integer: '4.5', number: '2000' }, null, ['integer elicit.notInteger', 'number elicit.max']],
    ['a bad email', { name: 'a', email: 'nope' }, null, ['email elicit.email']],
    ['too many instruments', { name: 'a', instruments: ['Guitar', 'Piano', 'Drums'] }, null, ['instruments elicit.maxItems']],
    ['a titled choice and a checked box', { name: 'a', hero: 'hero-2', check: true, pet: 'pet-2' }, { hero: 'hero-2', check: true, pet: 'pet-2' }, []],
    ['a value that is no choice', { name: 'a', hero: 'batman' }, null, ['hero elicit.choose']],
  ])('%s', (_, values, want, problems) => {
    const r = formContent(fields, { ...initialValues(fields), ...values })
    expect(r.problems.map((p) => `${p.field} ${p.key}`)).toEqual(problems)
    if (want) expect(r.content).toMatchObject(want)
    if (want && !('email' in values)) expect(r.content).not.toHaveProperty('email')
  })
})
