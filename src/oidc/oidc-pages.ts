/**
 * The few pages the provider library renders itself (an error it cannot send to a
 * client, the device-code forms, the logout confirmation): one plain shell, every
 * value escaped, no script of our own. The library's forms carry what they need.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A whole page around `body` (already HTML: the caller escapes what it puts in). */
export function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;line-height:1.5}input,button{font:inherit;padding:.5rem;margin:.25rem 0}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>`;
}

/** The page for an error the provider cannot return to the client (bad client or redirect URI). */
export function errorPage(error: { error?: unknown; error_description?: unknown }): string {
  return page('Sign-in request refused', `<p><strong>${escapeHtml(error.error)}</strong></p><p>${escapeHtml(error.error_description)}</p>`);
}
