/**
 * A real browser for the passkey specs: Debian's chromium driven through
 * playwright-core, with the DevTools virtual authenticator (a CTAP2 platform
 * authenticator with resident keys and user verification), on a page served
 * for the test from `http://localhost:<port>` (a secure context, so WebAuthn
 * works without TLS). The page calls navigator.credentials.create()/.get() with
 * the options the service answered and hands back `credential.toJSON()`.
 * If chromium cannot start, `startBrowser` throws: the specs fail, never skip.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, BrowserContext, CDPSession, chromium, Page } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(require.resolve('axe-core'), 'utf8');

/** The built console the service serves (`npx vite build --config console/vite.config.ts`; `npm test` builds it first). */
const CONSOLE_BUILD = join(__dirname, '..', '..', 'dist', 'console', 'index.html');

/** Fails a browser spec at once, with what to do, when the console is not built. */
export function requireConsoleBuild(): void {
  if (!existsSync(CONSOLE_BUILD)) throw new Error(`${CONSOLE_BUILD} is missing: build the console (npx vite build --config console/vite.config.ts) before this spec`);
}

/**
 * Runs axe-core in the page and answers the serious and critical violations (rule
 * ids with their first targets). Evaluated through DevTools rather than added as a
 * <script>: the service's CSP (script-src 'self') rightly refuses inline scripts.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as any).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return (result.violations as Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>).map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** Passing confirmations (toasts) are left out of the pictures. */
const SCREENSHOT_STYLE = '.toasts { display: none !important; }';

export interface AccessibleScreenOptions {
  /**
   * Check light and dark mode (default true): light, then dark, then back to light.
   * When false, the page is checked and photographed once, in whatever colour scheme it has.
   */
  dark?: boolean;
}

/**
 * Axe-checks the page (no serious or critical violations) and photographs it, full
 * page, to `<shotsDir>/<name>.png`; with dark mode (the default) also to
 * `<shotsDir>/<name>-dark.png`, and leaves the page in light mode.
 */
export async function checkAccessibleScreen(page: Page, name: string, shotsDir: string, options: AccessibleScreenOptions = {}): Promise<void> {
  if (options.dark === false) {
    expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
    await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true, style: SCREENSHOT_STYLE });
    return;
  }
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    expect({ screen: name, scheme, violations: await seriousViolations(page) }).toEqual({ screen: name, scheme, violations: [] });
    await page.screenshot({ path: join(shotsDir, `${name}${scheme === 'dark' ? '-dark' : ''}.png`), fullPage: true, style: SCREENSHOT_STYLE });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Whether the page scrolls sideways and, when it does, what sticks out. */
export interface PageWidth {
  overflow: boolean;
  /**
   * When it does: the page's scroll width, then up to five elements past the viewport's
   * edge, outermost first, and up to five texts that run past it (tag, classes, right edge in px).
   */
  wider: string[];
}

/**
 * The page's width against a `viewport`-px wide screen (default 390, a phone):
 * `overflow` when `document.documentElement.scrollWidth` is larger, with what
 * passes the viewport's right edge named for the failure message: the elements,
 * and the texts that run out of their element's box (which no element's box shows).
 */
export async function pageWidth(page: Page, viewport = 390): Promise<PageWidth> {
  return page.evaluate((limit) => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.scrollWidth as number;
    if (width <= limit) return { overflow: false, wider: [] };
    const name = (el: any, right: number) => `${el.tagName.toLowerCase()}.${String(el.className)} ${right.toFixed(1)}`;
    const boxes = Array.from(doc.querySelectorAll('body *') as any[])
      .filter((el) => el.getBoundingClientRect().right > limit)
      .map((el) => name(el, el.getBoundingClientRect().right));
    // Text that runs out of its element's box (an unbroken address, say): named by its element.
    const texts: string[] = [];
    const walker = doc.createTreeWalker(doc.body, 4 /* NodeFilter.SHOW_TEXT */);
    const range = doc.createRange();
    for (let node = walker.nextNode(); node && texts.length < 5; node = walker.nextNode()) {
      range.selectNodeContents(node);
      const right = range.getBoundingClientRect().right as number;
      if (right > limit) texts.push(`text in ${name(node.parentElement, right)}: ${String(node.textContent).trim().slice(0, 60)}`);
    }
    return { overflow: true, wider: [`scrollWidth ${width}`, ...boxes.slice(0, 5), ...texts] };
  }, viewport);
}

export interface ConsoleCredentials {
  username: string;
  password: string;
  /** The sector to sign in to (`?sector=`); without it, the sign-in page's default. */
  sectorID?: string;
}

/**
 * Signs in on the console's sign-in page (used through its labels) and waits for
 * the console's navigation; when it does not appear, fails with where the page is
 * and what it says.
 */
export async function signInToConsole(page: Page, baseUrl: string, { username, password, sectorID }: ConsoleCredentials): Promise<void> {
  await page.goto(`${baseUrl}/console/sign-in${sectorID ? `?sector=${encodeURIComponent(sectorID)}` : ''}`);
  await page.getByLabel(/^(username|username or email|email or username)$/i).fill(username);
  await page.getByLabel(/^password$/i).fill(password);
  await page.getByRole('button', { name: /^(sign in|continue|next)$/i }).click();
  await page
    .getByRole('navigation', { name: /console/i })
    .waitFor()
    .catch(async (err: Error) => {
      throw new Error(`no console after signing in as ${username} (at ${page.url()}): ${(await page.locator('body').innerText()).slice(0, 600)}\n${err.message}`);
    });
}


const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A page for the console's specs: a new light-mode 1280×900 context allowed `origin`'s clipboard, 15 s per step. */
export async function newConsolePage(browser: Browser, origin: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** What a spec closes when it ends: a browser, context or page, the test app, a server, the mail catcher. */
type Closable = { close(): Promise<unknown> } | { stop(): Promise<unknown> };

/**
 * A browser spec's teardown, in order: first the browser parts (pages, contexts, then
 * the browser), whose errors are ignored (a failed test may have closed them already,
 * or chromium may be gone); then the rest (the test app, servers, the mail catcher),
 * whose errors fail the spec. What a failed `beforeAll` never made is undefined and skipped.
 */
export async function closeAll(browserParts: Array<Closable | undefined>, ...rest: Array<Closable | undefined>): Promise<void> {
  for (const part of browserParts) if (part) await closeOne(part).catch(() => undefined);
  for (const thing of rest) if (thing) await closeOne(thing);
}

function closeOne(thing: Closable): Promise<unknown> {
  return 'stop' in thing ? thing.stop() : thing.close();
}

/** Launches chromium; a failure is an error naming the binary (the spec fails loudly). */
export async function startBrowser(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
  } catch (err) {
    throw new Error(`chromium could not start from ${CHROMIUM_PATH} (install Debian's chromium; .ci/run does): ${(err as Error).message}`);
  }
}

/** A tiny page served on `localhost` for the test: its origin is what the sector allows. */
export interface TestOrigin {
  origin: string;
  port: number;
  close(): Promise<void>;
}

const PAGE = '<!doctype html><html><head><meta charset="utf-8"><title>passkeys</title></head><body><h1>Passkey test page</h1></body></html>';

export async function serveTestPage(): Promise<TestOrigin> {
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://localhost:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface VirtualAuthenticatorOptions {
  isUserVerified?: boolean;
}

/** A browser tab on the test origin with a virtual authenticator attached. */
export class PasskeyPage {
  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly cdp: CDPSession,
    public authenticatorId: string,
  ) {}

  static async open(browser: Browser, origin: string, options: VirtualAuthenticatorOptions = {}): Promise<PasskeyPage> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const id = await addAuthenticator(cdp, options);
    await page.goto(`${origin}/`);
    const secure = await page.evaluate(() => (globalThis as any).isSecureContext === true && typeof (globalThis as any).PublicKeyCredential === 'function');
    if (!secure) throw new Error(`${origin} is not a secure context with WebAuthn`);
    return new PasskeyPage(context, page, cdp, id);
  }

  /** Replaces the virtual authenticator with a fresh one (no credentials). */
  async replaceAuthenticator(options: VirtualAuthenticatorOptions = {}): Promise<void> {
    await this.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: this.authenticatorId });
    this.authenticatorId = await addAuthenticator(this.cdp, options);
  }

  /** The credentials the virtual authenticator holds (resident ones carry the user handle). */
  async storedCredentials(): Promise<Array<{ credentialId: string; isResidentCredential: boolean; rpId?: string; userHandle?: string; signCount: number }>> {
    const { credentials } = await this.cdp.send('WebAuthn.getCredentials', { authenticatorId: this.authenticatorId });
    return credentials;
  }

  /** Copies credentials (as `storedCredentials` answers them, with their private keys) into this tab's authenticator. */
  async addCredentials(credentials: Array<Record<string, unknown>>): Promise<void> {
    for (const credential of credentials) {
      await this.cdp.send('WebAuthn.addCredential', { authenticatorId: this.authenticatorId, credential: credential as any });
    }
  }

  /** navigator.credentials.create() with the `options` of registration/begin; answers credential.toJSON(). */
  create(options: unknown): Promise<Record<string, any>> {
    // Runs in the page (no DOM types in this project's lib: the browser globals are reached through globalThis).
    return this.page.evaluate(async (json: any) => {
      const g = globalThis as any;
      const b64 = (s: string) => {
        const t = s.replace(/-/g, '+').replace(/_/g, '/');
        const bin: string = g.atob(t + '='.repeat((4 - (t.length % 4)) % 4));
        return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
      };
      const o = JSON.parse(JSON.stringify(json));
      // The service answers zero values ("" for an unset enum, empty icons); the browser wants them absent.
      if (o.authenticatorSelection && !o.authenticatorSelection.authenticatorAttachment) delete o.authenticatorSelection.authenticatorAttachment;
      delete o.rp.icon;
      delete o.user.icon;
      const publicKey = g.PublicKeyCredential.parseCreationOptionsFromJSON
        ? g.PublicKeyCredential.parseCreationOptionsFromJSON(o)
        : {
            ...o,
            challenge: b64(o.challenge),
            user: { ...o.user, id: b64(o.user.id) },
            excludeCredentials: o.excludeCredentials.map((c: { id: string }) => ({ ...c, id: b64(c.id) })),
          };
      const credential = await g.navigator.credentials.create({ publicKey });
      return credential.toJSON() as Record<string, any>;
    }, options);
  }

  /** navigator.credentials.get() with `credentialAssertion.publicKey` of login/webauthn/begin; answers credential.toJSON(). */
  get(publicKeyJson: unknown): Promise<Record<string, any>> {
    return this.page.evaluate(async (json: any) => {
      const g = globalThis as any;
      const b64 = (s: string) => {
        const t = s.replace(/-/g, '+').replace(/_/g, '/');
        const bin: string = g.atob(t + '='.repeat((4 - (t.length % 4)) % 4));
        return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
      };
      const o = JSON.parse(JSON.stringify(json));
      delete o.timout; // the interface's spelling; the browser reads timeout
      const publicKey = g.PublicKeyCredential.parseRequestOptionsFromJSON
        ? g.PublicKeyCredential.parseRequestOptionsFromJSON(o)
        : { ...o, challenge: b64(o.challenge), allowCredentials: o.allowCredentials.map((c: { id: string }) => ({ ...c, id: b64(c.id) })) };
      const credential = await g.navigator.credentials.get({ publicKey });
      return credential.toJSON() as Record<string, any>;
    }, publicKeyJson);
  }

  /** Runs `create` and answers the DOMException name it fails with (or "" when it succeeds). */
  async createError(options: unknown): Promise<string> {
    try {
      await this.create(options);
      return '';
    } catch (err) {
      const m = /(InvalidStateError|NotAllowedError|SecurityError|NotSupportedError|TypeError)/.exec((err as Error).message);
      return m ? m[1] : (err as Error).message;
    }
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

async function addAuthenticator(cdp: CDPSession, options: VirtualAuthenticatorOptions): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: options.isUserVerified ?? true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}
