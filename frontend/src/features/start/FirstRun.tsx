import { useEffect, useId, useState } from 'react'
import type { LocalServer } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { describeLocalServer, proposedModel } from '../../lib/localServers'
import { useStore, useStores } from '../../stores'

/** What to do while no LLM is configured: the model servers running on this
 * computer, offered in words with their models, or how to get one. */
export function FirstRun() {
  const { setup, settings } = useStores()
  const servers = useStore(setup, (s) => s.servers)
  const detecting = useStore(setup, (s) => s.detecting)
  const error = useStore(setup, (s) => s.error)

  useEffect(() => {
    if (setup.getState().servers === null) void setup.actions.detect()
  }, [setup])

  return (
    <section className="card first-run" aria-labelledby="first-run-title" data-testid="first-run" data-state={servers === null ? 'looking' : servers.length > 0 ? 'found' : 'none'}>
      <h2 id="first-run-title" className="card-title">
        Connect a model
      </h2>
      {error && <ErrorBanner error={error} onDismiss={setup.actions.dismissError} />}
      {servers === null && (
        <p className="hint" role="status" data-testid="first-run-looking">
          Looking for a model server on this computer…
        </p>
      )}
      {servers?.map((s) => (
        <Offer key={s.baseUrl} server={s} />
      ))}
      {servers?.length === 0 && (
        <p className="first-run-text" data-testid="first-run-none">
          No model server is running on this computer. Start Ollama, LM Studio or vLLM and look again, or connect to OpenAI or another
          OpenAI-compatible service in Settings.
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="btn btn-ghost" disabled={detecting} onClick={() => void setup.actions.detect()} data-testid="first-run-rescan">
          {detecting ? 'Looking…' : 'Look again'}
        </button>
        <button type="button" className="btn" onClick={() => settings.actions.show('general')} data-testid="first-run-settings">
          Open settings
        </button>
      </div>
    </section>
  )
}

function Offer({ server }: { server: LocalServer }) {
  const { setup } = useStores()
  const applying = useStore(setup, (s) => s.applying)
  const [model, setModel] = useState(() => proposedModel(server))
  const id = useId()
  const none = server.models.length === 0
  return (
    <div className="first-run-offer" data-testid="first-run-offer" data-name={server.name}>
      <p className="first-run-text">
        <strong data-testid="first-run-offer-text">{describeLocalServer(server)}</strong>
        {none ? ': load or download a model there, then look again.' : ' — use it?'}
      </p>
      {!none && (
        <div className="first-run-use">
          {server.models.length > 1 && (
            <>
              <label htmlFor={id} className="sr-only">
                Model
              </label>
              <select id={id} className="input" value={model} onChange={(e) => setModel(e.target.value)} data-testid="first-run-model">
                {server.models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </>
          )}
          <button type="button" className="btn btn-primary" disabled={applying !== null} onClick={() => void setup.actions.use(server, model)} data-testid="first-run-use">
            {applying === server.baseUrl ? 'Saving…' : `Use ${server.name}`}
          </button>
        </div>
      )}
    </div>
  )
}

/** Said once a server was chosen on this screen. */
export function FirstRunDone({ name, model, onDismiss }: { name: string; model: string; onDismiss: () => void }) {
  return (
    <div className="first-run-done" role="status" data-testid="first-run-done">
      <span>
        ✓ CrewAgent will use <strong>{model}</strong> on {name}. You can change it any time in Settings.
      </span>
      <button type="button" className="btn btn-ghost btn-small" onClick={onDismiss} data-testid="first-run-done-dismiss">
        Dismiss
      </button>
    </div>
  )
}
