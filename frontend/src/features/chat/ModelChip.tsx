import { useEffect, useRef, useState } from 'react'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'
import { backendText } from '../../i18n/backend'

/** The model the open conversation's answers come from, in the composer:
 * a chip that opens the list of the settings' endpoints and their models. */
export function ModelChip({ disabled }: { disabled?: boolean }) {
  const { t } = useTranslation()
  const { models, chat, conversations, settings } = useStores()
  const conversationId = useStore(chat, (s) => s.conversationId)
  const meta = useStore(conversations, (s) => s.list.find((m) => m.id === conversationId) ?? null)
  const state = useStore(models, (s) => s)
  const defaultModel = useStore(settings, (s) => s.view?.settings.llm.model ?? '')
  const [open, setOpen] = useState(false)
  const root = useRef<HTMLDivElement>(null)

  const metaEndpoint = meta?.endpoint ?? ''
  const metaModel = meta?.model ?? ''
  useEffect(() => {
    models.actions.open(conversationId ? { id: conversationId, endpoint: metaEndpoint, model: metaModel } : null)
  }, [models, conversationId, metaEndpoint, metaModel])

  useEffect(() => {
    if (!open) return
    const onDown = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', onDown)
    return () => document.removeEventListener('mousedown', onDown)
  }, [open])

  if (!conversationId) return null
  const endpoint = state.conversationId === conversationId ? state.endpoint : metaEndpoint
  const model = (state.conversationId === conversationId ? state.model : metaModel) || (endpoint ? '' : defaultModel)
  const label = model || t('modelChip.defaultModel')

  const toggle = () => {
    if (!open && !state.loading) void models.actions.load()
    setOpen(!open)
  }
  const choose = async (ep: string, m: string) => {
    if (await models.actions.select(ep, m)) setOpen(false)
  }
  const isCurrent = (ep: string, m: string) => (ep === 'default' ? endpoint === '' : ep === endpoint) && m === model

  return (
    <div className="model-chip" ref={root} onKeyDown={(e) => e.key === 'Escape' && open && (e.stopPropagation(), setOpen(false))}>
      <button
        type="button"
        className="model-chip-button"
        onClick={toggle}
        disabled={disabled}
        aria-haspopup="listbox"
        aria-expanded={open}
        title={endpoint ? t('modelChip.titleOn', { model: label, endpoint }) : t('modelChip.title', { model: label })}
        data-testid="model-chip"
      >
        <span className="model-chip-name">{label}</span>
        {endpoint && <span className="model-chip-endpoint">{endpoint}</span>}
        <span aria-hidden="true" className="model-chip-caret">▾</span>
      </button>
      {open && (
        <div className="model-menu" role="listbox" aria-label={t('modelChip.models')} data-testid="model-menu">
          {state.loading && !state.endpoints && <div className="model-menu-note">{t('modelChip.asking')}</div>}
          {state.endpoints?.length === 0 && <div className="model-menu-note">{t('modelChip.noServer')}</div>}
          {state.endpoints?.map((ep) => (
            <div className="model-menu-group" key={ep.name} role="group" aria-label={ep.name === 'default' ? t('modelChip.defaultServer') : ep.name}>
              <div className="model-menu-heading" title={ep.baseUrl}>
                {ep.name === 'default' ? t('modelChip.defaultServer') : ep.name}
              </div>
              {ep.error && <div className="model-menu-note model-menu-error">{ep.error}</div>}
              {ep.models.map((m) => (
                <button
                  type="button"
                  role="option"
                  aria-selected={isCurrent(ep.name, m)}
                  className={`model-menu-item${isCurrent(ep.name, m) ? ' current' : ''}`}
                  key={m}
                  disabled={state.choosing !== null}
                  onClick={() => void choose(ep.name, m)}
                  data-testid={`model-option-${ep.name}-${m}`}
                >
                  <span aria-hidden="true" className="model-menu-check">{isCurrent(ep.name, m) ? '✓' : ''}</span>
                  {m}
                  {m === ep.default && <span className="model-menu-default">{t('modelChip.default')}</span>}
                </button>
              ))}
              {ep.models.length === 0 && !ep.error && <div className="model-menu-note">{t('modelChip.noModels')}</div>}
            </div>
          ))}
          {state.error && (
            <div className="model-menu-note model-menu-error" role="alert">
              {backendText(state.error)}
            </div>
          )}
        </div>
      )}
    </div>
  )
}
