import { html, type SafeHtml } from './html.js';

/** Every page: the self-hosted stylesheet, no script. */
export function layout(title: string, body: SafeHtml, header?: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Pharmacy dashboard</title>
<link rel="stylesheet" href="/dashboard/dashboard.css">
<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="top"><a class="brand" href="/dashboard">Pharmacy dashboard</a>${header}</header>
<main>
${body}
</main>
</body>
</html>
`.text;
}

/** The hidden field every form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

export function noticeBox(notice: string | null | undefined, kind: 'notice' | 'error' = 'notice'): SafeHtml {
  return notice ? html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${notice}</p>` : html``;
}

/** The sign-in form (also the form that adds the customer's other environment, with the session's token). */
export function signInForm(csrf: string, label: string, button: string): SafeHtml {
  return html`<form method="post" action="/dashboard/sign-in" class="sign-in">
${csrfField(csrf)}
<label for="api_key">${label}</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" required maxlength="128" spellcheck="false">
<button type="submit">${button}</button>
</form>`;
}

export function signInPage(csrf: string, error?: string): string {
  return layout(
    'Sign in',
    html`<section class="card narrow">
<h1>Sign in</h1>
<p>Sign in with one of your API keys: a sandbox key (<code>sk_sandbox_…</code>) opens the sandbox, a production key (<code>sk_live_…</code>) production. You can add the other environment once signed in.</p>
${noticeBox(error, 'error')}
${signInForm(csrf, 'API key', 'Sign in')}
</section>`,
  );
}

export function errorPage(status: number, message: string): string {
  return layout(
    `Error ${status}`,
    html`<section class="card narrow">
<h1>${status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 429 ? 'Too many attempts' : status >= 500 ? 'Something went wrong' : 'Request refused'}</h1>
${noticeBox(message, 'error')}
<p><a href="/dashboard">Back to the dashboard</a></p>
</section>`,
  );
}

/** The answer that shows a new signing secret: once, never stored in clear, never in an address. */
export function secretPage(environment: string, secret: string, what: string): string {
  return layout(
    'New signing secret',
    html`<section class="card narrow">
<h1>New ${environment} signing secret</h1>
<p>${what} Copy the secret now: it is shown only on this page and cannot be shown again (only its first characters are kept for display).</p>
<p><code class="secret" id="secret">${secret}</code></p>
<p>Verify each delivery's <code>webhook-signature</code> with it (Standard Webhooks).</p>
<p><a href="/dashboard?env=${environment}">Back to the dashboard</a></p>
</section>`,
  );
}
