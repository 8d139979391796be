import type { components } from '@pharmacy/contract';
import type { Environment } from '../auth/principal.js';
import type { DeliveryAttemptRow } from '../webhook-deliveries/delivery-attempt-repository.js';
import type { WebhookEndpointView } from '../webhook-endpoints/webhook-endpoint-service.js';
import { csrfField, layout, noticeBox, signInForm } from './dashboard-pages.js';
import { html, type SafeHtml } from './html.js';

type ListedEvent = components['schemas']['WebhookEventListItem'];

export interface ApiKeyListing {
  key_prefix: string;
  environment: Environment;
  created_at: string;
  revoked_at: string | null;
}

/** What the signed-in page shows of one environment. */
export interface AccountView {
  csrf: string;
  /** The environments the session holds; `environment` is the one shown. */
  environments: Environment[];
  environment: Environment;
  notice: string | null;
  endpoint: WebhookEndpointView | undefined;
  testTypes: string[];
  events: ListedEvent[];
  /** The id to list before for the next page; null on the last. */
  nextBefore: string | null;
  /** Whether this is a later page. */
  paged: boolean;
  attempts: Map<string, DeliveryAttemptRow[]>;
  keys: ApiKeyListing[];
}

const ENVIRONMENT_NAMES: Record<Environment, string> = { sandbox: 'Sandbox', production: 'Production' };

function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

function time(iso: string | null | undefined): SafeHtml {
  return iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>` : html`—`;
}

function tabs(view: AccountView): SafeHtml {
  const items = (['sandbox', 'production'] as const).map((env) =>
    view.environments.includes(env)
      ? html`<a class="tab${env === view.environment ? ' current' : ''}" href="/dashboard?env=${env}"${env === view.environment ? html` aria-current="page"` : ''}>${ENVIRONMENT_NAMES[env]}</a>`
      : html`<span class="tab locked" title="Sign in with this environment's key to open it">${ENVIRONMENT_NAMES[env]} (locked)</span>`,
  );
  return html`<nav class="tabs">${items}</nav>`;
}

function endpointSection(view: AccountView): SafeHtml {
  const env = view.environment;
  const e = view.endpoint;
  const form = (action: string, button: string, extra: SafeHtml = html``, cls = '') =>
    html`<form method="post" action="/dashboard/${action}" class="inline ${cls}">${csrfField(view.csrf)}${hidden('environment', env)}${extra}<button type="submit">${button}</button></form>`;
  const details = e
    ? html`<dl class="endpoint">
<dt>URL</dt><dd><code id="endpoint-url">${e.url}</code></dd>
<dt>Status</dt><dd><span class="badge ${e.status}" id="endpoint-status">${e.status}</span>${e.disabled_at ? html` since ${time(e.disabled_at)}` : ''}</dd>
${e.disabled_reason ? html`<dt>Why</dt><dd>${e.disabled_reason}</dd>` : ''}
<dt>Signing secret</dt><dd><code>${e.secret_hint}</code></dd>
<dt>Updated</dt><dd>${time(e.updated_at)}</dd>
</dl>
<div class="actions">
${e.status === 'disabled' ? form('endpoint/enable', 'Enable the endpoint') : ''}
${form('endpoint/rotate-secret', 'Rotate the signing secret', html``, 'danger')}
</div>`
    : html`<p>No webhook endpoint is set for ${env}: events are not delivered (they stay listed below).</p>`;
  const testForm = e
    ? html`<form method="post" action="/dashboard/endpoint/test" class="test">
${csrfField(view.csrf)}${hidden('environment', env)}
<label for="callback_type">Send a test event</label>
<select id="callback_type" name="callback_type">${view.testTypes.map((t) => html`<option value="${t}">${t}</option>`)}</select>
<button type="submit">Send test event</button>
<p class="hint">A signed example event of that type, marked <code>"test": true</code>, sent once now; it is not recorded or retried.</p>
</form>`
    : '';
  return html`<section class="card">
<h2>Webhook endpoint</h2>
${details}
<form method="post" action="/dashboard/endpoint" class="set-url">
${csrfField(view.csrf)}${hidden('environment', env)}
<label for="url">${e ? 'Change the URL' : 'Endpoint URL'}</label>
<input id="url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/webhooks" value="${e?.url ?? ''}">
<button type="submit">${e ? 'Save URL' : 'Set endpoint'}</button>
</form>
${testForm}
</section>`;
}

function attemptRows(attempts: DeliveryAttemptRow[] | undefined): SafeHtml {
  if (!attempts?.length) return html`<p class="hint">No attempt recorded.</p>`;
  return html`<table class="attempts">
<thead><tr><th>Attempt</th><th>Time</th><th>Outcome</th><th>Answer</th><th>Duration</th></tr></thead>
<tbody>${attempts.map(
    (a) => html`<tr class="attempt ${a.outcome}"><td>${a.attempt}</td><td>${time(a.attempted_at)}</td><td>${a.outcome}</td><td>${a.status_code === null ? (a.error_kind ?? 'no answer') : `HTTP ${a.status_code}`}</td><td>${a.duration_ms} ms</td></tr>`,
  )}</tbody>
</table>`;
}

function eventsSection(view: AccountView): SafeHtml {
  const env = view.environment;
  const rows = view.events.map((item) => {
    const d = item.delivery_data;
    const id = d.webhook_id ?? '';
    return html`<li class="event" data-event-id="${id}">
<div class="event-head">
<span class="type">${item.payload.callback_type}</span>
<code>${id}</code>
<span class="badge ${d.status}">${d.status}</span>
<span>${d.attempts ?? 0} attempt(s)</span>
${time(new Date(item.payload.timestamp * 1000).toISOString())}
<form method="post" action="/dashboard/events/redeliver" class="inline">${csrfField(view.csrf)}${hidden('environment', env)}${hidden('event_id', id)}<button type="submit">Redeliver</button></form>
</div>
${attemptRows(view.attempts.get(id))}
</li>`;
  });
  return html`<section class="card">
<h2>Recent events</h2>
${view.events.length ? html`<ol class="events">${rows}</ol>
<p class="hint">Attempts newest first; a redelivery counts its attempts from 1 again.</p>` : html`<p>No events${view.paged ? ' before these' : ''} yet.</p>`}
<p class="pages">${view.paged ? html`<a href="/dashboard?env=${env}">Newest</a> ` : ''}${view.nextBefore ? html`<a rel="next" href="/dashboard?env=${env}&amp;before=${view.nextBefore}">Next page</a>` : ''}</p>
</section>`;
}

function keysSection(view: AccountView): SafeHtml {
  const keys = view.keys.filter((k) => view.environments.includes(k.environment));
  return html`<section class="card">
<h2>API keys</h2>
<table class="keys">
<thead><tr><th>Key</th><th>Environment</th><th>Created</th><th>Revoked</th></tr></thead>
<tbody>${keys.map((k) => html`<tr><td><code>${k.key_prefix}…</code></td><td>${k.environment}</td><td>${time(k.created_at)}</td><td>${time(k.revoked_at)}</td></tr>`)}</tbody>
</table>
<p class="hint">Keys are shown by their first characters only: the whole key is never stored.</p>
</section>`;
}

export function accountPage(view: AccountView): string {
  const other = (['sandbox', 'production'] as const).find((env) => !view.environments.includes(env));
  const header = html`<form method="post" action="/dashboard/sign-out" class="inline sign-out">${csrfField(view.csrf)}<button type="submit">Sign out</button></form>`;
  return layout(
    ENVIRONMENT_NAMES[view.environment],
    html`${tabs(view)}
${noticeBox(view.notice)}
<h1>${ENVIRONMENT_NAMES[view.environment]}</h1>
${endpointSection(view)}
${eventsSection(view)}
${keysSection(view)}
${other ? html`<section class="card">${signInForm(view.csrf, `Add ${other}: its API key`, `Add ${other}`)}</section>` : ''}`,
    header,
  );
}
