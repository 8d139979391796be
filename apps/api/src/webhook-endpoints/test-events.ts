import type { components } from '@pharmacy/contract';
import { parse } from 'yaml';
import { nowMs } from '../clock.js';

/** A webhook event type (`callback_type`). */
export type CallbackType = components['schemas']['CallbackType'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The `callback_type` a test delivery is when the caller names none. */
export const DEFAULT_TEST_CALLBACK_TYPE: CallbackType = 'NOTIFY_RX';

/**
 * The bodies of test deliveries: for each event type, the first example of that webhook in
 * the bundled spec (so a test event is exactly what the docs show), with the current
 * `timestamp` and `test: true`. Read once, on first use.
 */
export class WebhookTestEvents {
  private examples: Map<string, Json> | undefined;

  constructor(private readonly openApiDocument: () => string) {}

  /** The event types that have an example (every webhook of the spec has one). */
  types(): string[] {
    return [...this.load().keys()];
  }

  /** A fresh test event of the type, or undefined when the spec has no example of it. */
  eventOf(callbackType: CallbackType): Record<string, Json> | undefined {
    const example = this.load().get(callbackType);
    if (!example || typeof example !== 'object' || Array.isArray(example)) return undefined;
    return { ...structuredClone(example), timestamp: Math.floor(nowMs() / 1000), test: true };
  }

  private load(): Map<string, Json> {
    if (this.examples) return this.examples;
    const document = parse(this.openApiDocument()) as Record<string, any>;
    const examples = new Map<string, Json>();
    for (const [type, webhook] of Object.entries<any>(document.webhooks ?? {})) {
      const content = webhook?.post?.requestBody?.content?.['application/json'];
      const first = Object.values<any>(content?.examples ?? {})[0];
      const example = first && resolve(document, first);
      if (example && 'value' in example) examples.set(type, example.value as Json);
    }
    this.examples = examples;
    return examples;
  }
}

/** Follows a local `$ref` (`#/components/examples/...`), as the bundle writes shared examples. */
function resolve(document: Record<string, any>, node: any): any {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 8; hops++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((at, part) => at?.[part], document);
  }
  return current;
}
