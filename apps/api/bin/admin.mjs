#!/usr/bin/env node
// `pnpm admin ...` runs this bin (no pnpm script banner), so stdout carries only the command's output.
import { register } from 'tsx/esm/api';

register();
await import('../src/admin/cli.ts');
