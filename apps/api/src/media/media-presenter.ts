import type { components } from '@pharmacy/contract';
import type { MediaRow } from './media-repository.js';

type Schemas = components['schemas'];

/** `GET /v1/media/{id}`, `POST /v1/media`: the real platform's record. */
export function presentMediaMetadata(row: MediaRow): Schemas['MediaMetadata'] {
  return { id: row.id, createdAt: row.created_at, updatedAt: row.updated_at, title: row.title, status: row.status };
}

/** The name v2 answers: the v2 name, else the v1 title, else the id. */
export function mediaName(row: MediaRow): string {
  return row.name ?? row.title ?? row.id;
}
