import { describeLocalServer, proposedModel } from './localServers'

const server = (models: string[]) => ({ name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', models })

describe('local servers in words', () => {
  it.each([
    [[], 'Ollama is running on this computer but has no model yet'],
    [['llama3.2:3b'], 'Ollama is running on this computer with one model, llama3.2:3b'],
    [['a', 'b', 'c'], 'Ollama is running on this computer with 3 models'],
  ])('%j', (models, text) => {
    expect(describeLocalServer(server(models))).toBe(text)
  })

  it('proposes the model already chosen when the server has it, else its first', () => {
    expect(proposedModel(server(['a', 'b']), 'b')).toBe('b')
    expect(proposedModel(server(['a', 'b']), 'z')).toBe('a')
    expect(proposedModel(server([]), 'z')).toBe('')
  })
})
