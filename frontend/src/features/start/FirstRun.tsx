import { useEffect, useId, useState } from 'react'
import type { LocalServer } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { describeLocalServer, proposedModel } from '../../lib/localServers'
import { useStore, useStores } from '../../stores'
import { Trans, useTranslation } from '../../i18n'

/** What to do while no LLM is configured: the model servers running on this
 * computer, offered in words with their models, or how to get one. */
export function FirstRun() {
  const { t } = useTranslation()
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
        {t('firstRun.title')}
      </h2>
      {error && <ErrorBanner error={error} onDismiss={setup.actions.dismissError} />}
      {servers === null && (
        <p className="hint" role="status" data-testid="first-run-looking">
          {t('firstRun.looking')}
        </p>
      )}
      {servers?.map((s) => (
        <Offer key={s.baseUrl} server={s} />
      ))}
      {servers?.length === 0 && (
        <p className="first-run-text" data-testid="first-run-none">
          {t('firstRun.none')}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="btn btn-ghost" disabled={detecting} onClick={() => void setup.actions.detect()} data-testid="first-run-rescan">
          {detecting ? t('firstRun.lookingShort') : t('firstRun.lookAgain')}
        </button>
        <button type="button" className="btn" onClick={() => settings.actions.show('general')} data-testid="first-run-settings">
          {t('chat.openSettings')}
        </button>
      </div>
    </section>
  )
}

function Offer({ server }: { server: LocalServer }) {
  const { t } = useTranslation()
  const { setup } = useStores()
  const applying = useStore(setup, (s) => s.applying)
  const [model, setModel] = useState(() => proposedModel(server))
  const id = useId()
  const none = server.models.length === 0
  return (
    <div className="first-run-offer" data-testid="first-run-offer" data-name={server.name}>
      <p className="first-run-text">
        <strong data-testid="first-run-offer-text">{describeLocalServer(server)}</strong>
        {none ? t('firstRun.noneThere') : t('firstRun.useIt')}
      </p>
      {!none && (
        <div className="first-run-use">
          {server.models.length > 1 && (
            <>
              <label htmlFor={id} className="sr-only">
                {t('firstRun.model')}
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
            {applying === server.baseUrl ? t('settings.saving') : t('settings.gen.use', { name: server.name })}
          </button>
        </div>
      )}
    </div>
  )
}

/** Said once a server was chosen on this screen. */
export function FirstRunDone({ name, model, onDismiss }: { name: string; model: string; onDismiss: () => void }) {
  const { t } = useTranslation()
  return (
    <div className="first-run-done" role="status" data-testid="first-run-done">
      <span>
        <Trans t={t} i18nKey="firstRun.done" values={{ model, name }} components={{ b: <strong /> }} />
      </span>
      <button type="button" className="btn btn-ghost btn-small" onClick={onDismiss} data-testid="first-run-done-dismiss">
        {t('common.dismiss')}
      </button>
    </div>
  )
}
