// Creating consults (createConsult) in production, on the tests' own care team: the patient
// given whole (a record made, or matched) or by token, a real platform body, the rules of a
// body and of its appointment, booking a slot atomically (of simultaneous bookings of one slot
// exactly one wins), any free provider when none is named, and safe retries.
import { createPlatformClient } from '@pharmacy/client';
import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import {
  addDays,
  consultBody,
  consultEvents,
  createConsult,
  eventSummary,
  getConsult,
  importCareTeam,
  inlinePatient,
  mondayAfter,
  npi,
  PROGRAM,
  PROVIDER,
  QUESTIONNAIRE,
  SAMPLE,
  shippingAddress,
  slotsOf,
  UNKNOWN_ID,
} from './support/consults.js';
import { createPatient, putPatient } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
const monday = mondayAfter();
beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
  await importCareTeam(t, monday);
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
/** Week `week`'s Monday at `time` UTC (Ava's hours are 16:00-18:00Z, Ben's 16:00-17:00Z). */
const mondayAt = (time: string, week = 1) => `${addDays(monday, (week - 1) * 7)}T${time}:00.000Z`;
const post = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
  t.client(apiKey).POST('/consults/v0/consult', { body: body as never, params: { header: headers as never } });
const slotTaken = { statusCode: 409, error: 'Conflict', message: 'The appointment slot is no longer available.' };
const providerOf = async (id: string) => (await getConsult(t, key(), id)).provider?.first_name;
const counts = async () => {
  const db = t.database.handle.db;
  const count = async (table: 'consults' | 'consult_appointments' | 'patients' | 'events') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { consults: await count('consults'), appointments: await count('consult_appointments'), patients: await count('patients'), events: await count('events') };
};

describe('creating a consult', () => {
  it('with the patient given whole: a patient record is made from it, and the same patient again matches the same record', async () => {
    const patient = { ...inlinePatient('Imogen'), last_name: 'Ashdown' };
    const first = await createConsult(t, key(), consultBody(patient));
    const { data: record } = await t.client(key()).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: first.patient } } });
    expect(record).toMatchObject({ first_name: 'Imogen', last_name: 'Ashdown', dob: '19800131', gender: 'female', address: { zip: '94107', email: 'jane@example.com', phone: '4155550100' } });

    const again = await createConsult(t, key(), consultBody(patient));
    expect(again.patient).toBe(first.patient);
    expect(again.id).not.toBe(first.id);
    // The pharmacy interface finds the same person too.
    expect(await putPatient(t, key(), { first_name: 'Imogen', last_name: 'Ashdown', dob: '19800131', gender: 'female' })).toBe(first.patient);

    const consult = await getConsult(t, key(), first.id);
    expect(consult).toEqual({
      id: first.id,
      status: 'REVIEW',
      program: { id: PROGRAM.weight, name: 'Weight care' },
      appointment: { scheduled: false },
      lab_tests: [],
      patient_token: first.patient,
      state: 'CA',
      created_at: expect.any(String),
      updated_at: consult.created_at,
    });
    expect(eventSummary(await consultEvents(t, key(), first.id))).toEqual(['CONSULT:REVIEW']);
  });

  it("with a patient_token: the consult is that patient's (a patient named by token may be of gender unknown)", async () => {
    const patient = await createPatient(t, key());
    const made = await createConsult(t, key(), consultBody(patient));
    expect(made.patient).toBe(patient);
    expect((await getConsult(t, key(), made.id)).patient_token).toBe(patient);
  });

  it("with the shipping state in lower case (StateCode allows it): the patient's state is that state, in upper case as the consult answers it", async () => {
    const made = await createConsult(t, key(), consultBody(await createPatient(t, key()), { shipping_address: shippingAddress('az'), appointment: { appt_date: mondayAt('17:00', 5), duration: 1800 } }));
    const consult = await getConsult(t, key(), made.id);
    expect(consult.state).toBe('AZ');
    expect(consult.provider?.first_name).toBe('Ava');
  });

  it('with a bearer token (createPlatformClient): the same operation', async () => {
    const platform = createPlatformClient({ baseUrl: t.baseUrl, clientId: acme.production_client_id, clientSecret: acme.production_client_secret, audience: acme.audience, retry: false, middleware: [contractMiddleware()] });
    const patient = await createPatient(t, key());
    const { data, response } = await platform.POST('/consults/v0/consult', { body: consultBody(patient) });
    expect(response.status).toBe(200);
    expect(data).toEqual({ consult: expect.stringMatching(/^[0-9a-f]{24}$/), patient: { patient_token: patient }, patient_token: patient });
    expect((await getConsult(t, key(), data!.consult)).status).toBe('REVIEW');
  });

  it("takes a real platform body whole (its parts this service does not use included), booked at Ava's slot given in her own offset", async () => {
    const body = {
      patient: {
        ...inlinePatient('Rosalind'),
        contacts: { email: 'rosalind@example.com', phone: '4155550111', sms: '4155550111', other_contacts: [{ number: '4155550122', type: 'care_giver' }] },
        payment: { method: 'card', last4: '4242' },
        current_medications: { metformin: '500 mg twice daily' },
        identification: [{ media_id: '6F1C2A3B-4D5E-4F60-8A7B-9C0D1E2F3A4B', form: 'PHOTO_IDENTIFICATION' }],
      },
      shipping_address: { ...shippingAddress(), company: 'Acme', street2: 'Suite 4', country: 'US', phone: '4155550100', fax: '4155550199' },
      questionaire: QUESTIONNAIRE.intake.toUpperCase(),
      // 09:00 in Phoenix is 16:00Z.
      appointment: { appt_date: `${monday}T09:00:00-07:00`, duration: 1800, provider_id: PROVIDER.ava },
      payment_type: 'cash',
      metadata: 'order-8841',
      customer_note_to_pharmacy: 'Leave at the front desk.',
      is_video_consult: true,
      attribute: 'campaign-7',
      notificationSettings: { optOutSms: true, optOutEmail: false, optOutPhone: true },
      insurances: JSON.stringify([{ payer: 'Acme Health Plan', member_id: 'A9321328' }]),
      answers: { height_cm: 170, weight_kg: 82, goals: ['lose weight'] },
      standard_questions: { allergies: 'none', pregnant: false },
      preferred_treatment: { medication: 'semaglutide' },
      other_consult_info: { referral: 'friend' },
      documents: { intake_form: 'https://files.example.com/intake.pdf' },
      prescription_template: { sig: 'Inject weekly' },
      primary_care_provider: { name: 'Dr. Lee', phone: '4155550177' },
      media: { selfie: '6F1C2A3B-4D5E-4F60-8A7B-9C0D1E2F3A4C' },
      lab_tests: [{ test_id: 'a1c', result: 5.4 }],
      authorized_representatives: [{ name: 'Sam Doe', relation: 'spouse' }],
    };
    const made = await createConsult(t, key(), body as never);
    const consult = await getConsult(t, key(), made.id);
    expect(consult).toEqual({
      id: made.id,
      status: 'REVIEW',
      metadata: 'order-8841',
      program: { id: PROGRAM.weight, name: 'Weight care' },
      appointment: { scheduled: true, start: mondayAt('16:00'), end: mondayAt('16:30') },
      lab_tests: [],
      provider: { npi: Number(npi('100000001')), first_name: 'Ava', last_name: 'Quill', title: 'MD' },
      patient_token: made.patient,
      state: 'CA',
      created_at: expect.any(String),
      updated_at: consult.created_at,
    });
  });
});

describe('a body that breaks a rule is refused with 400, keyed by its field, and nothing is written', () => {
  const others = { globex: '', production: '' };
  beforeAll(async () => {
    others.globex = await createPatient(t, globex.production_api_key);
    others.production = await createPatient(t, key());
  });
  // A patient record of Acme's: an appointment's rules are checked on their own (see the story after the table).
  const withAppointment = (appointment: Record<string, unknown>) => consultBody(others.production, { appointment });

  it.each<[string, () => unknown, { key: string; message: string }[]]>([
    ['an unknown questionaire', () => consultBody(inlinePatient('Nobody'), { questionaire: UNKNOWN_ID }), [{ key: 'questionaire', message: 'is not a questionnaire of the care team' }]],
    ["the sandbox's questionnaire, in production", () => consultBody(inlinePatient('Nobody'), { questionaire: SAMPLE.intake }), [{ key: 'questionaire', message: 'is not a questionnaire of the care team' }]],
    ['a patient of gender unknown, given whole', () => consultBody({ ...inlinePatient('Nobody'), gender: 'unknown' } as never), [{ key: 'patient.gender', message: 'must be male or female to make a patient record' }]],
    ['a patient without first_name, given whole', () => consultBody({ ...inlinePatient('Nobody'), first_name: undefined } as never), [{ key: 'patient.first_name', message: 'is required to make a patient record' }]],
    ['a patient without first_name and of gender unknown', () => consultBody({ ...inlinePatient('Nobody'), first_name: undefined, gender: 'unknown' } as never), [
      { key: 'patient.first_name', message: 'is required to make a patient record' },
      { key: 'patient.gender', message: 'must be male or female to make a patient record' },
    ]],
    ['an unknown patient_token', () => consultBody('pat_unknown'), [{ key: 'patient.patient_token', message: 'is not a known patient' }]],
    ["another customer's patient_token", () => consultBody(others.globex), [{ key: 'patient.patient_token', message: 'is not a known patient' }]],
    ['an appt_date that is no slot (16:10Z)', () => withAppointment({ appt_date: mondayAt('16:10'), duration: 1800 }), [{ key: 'appointment.appt_date', message: 'is not an open slot of a provider of the questionnaire (GET /v0/schedule)' }]],
    ["an appt_date at a half-hour slot, left at the real platform's 60 minutes (no 60-minute slot starts then)", () => withAppointment({ appt_date: mondayAt('16:30', 4) }), [{ key: 'appointment.appt_date', message: 'is not an open slot of a provider of the questionnaire (GET /v0/schedule)' }]],
    ["an appt_date in the past (a Monday of Ava's, two weeks before)", () => withAppointment({ appt_date: mondayAt('16:00', -1), duration: 1800 }), [{ key: 'appointment.appt_date', message: 'is not an open slot of a provider of the questionnaire (GET /v0/schedule)' }]],
    ['a provider_id not licensed in the patient\'s state (Cleo, NY, for a CA patient)', () => withAppointment({ appt_date: mondayAt('16:00', 4), duration: 1800, provider_id: PROVIDER.cleo }), [{ key: 'appointment.provider_id', message: "is not a provider of the questionnaire's program licensed in the patient's state" }]],
    ["a provider_id of another program (Dev sees skin care only)", () => withAppointment({ appt_date: mondayAt('16:00', 4), duration: 1800, provider_id: PROVIDER.dev }), [{ key: 'appointment.provider_id', message: "is not a provider of the questionnaire's program licensed in the patient's state" }]],
    ['a provider_id of no provider', () => withAppointment({ appt_date: mondayAt('16:00', 4), duration: 1800, provider_id: UNKNOWN_ID }), [{ key: 'appointment.provider_id', message: "is not a provider of the questionnaire's program licensed in the patient's state" }]],
    ['an appointment shorter than 5 minutes', () => withAppointment({ appt_date: mondayAt('16:00', 4), duration: 240 }), [{ key: 'appointment.duration', message: 'must be greater than or equal to 300' }]],
    ['no patient, shipping_address or questionaire', () => ({}), ['patient', 'shipping_address', 'questionaire'].map((k) => ({ key: k, message: 'is required' }))],
    ['a patient without the fields the real platform requires', () => consultBody({ first_name: 'Nobody' } as never), ['last_name', 'gender', 'dob', 'home_zip', 'preferred_contact'].map((k) => ({ key: `patient.${k}`, message: 'is required' }))],
    ['a dob as YYYYMMDD', () => consultBody({ ...inlinePatient('Nobody'), dob: '19800131' }), [{ key: 'patient.dob', message: 'must be a date as YYYY-MM-DD' }]],
    ['a field the real platform does not have', () => consultBody(inlinePatient('Nobody'), { colour: 'blue' }), [{ key: 'colour', message: 'is not allowed' }]],
  ])('%s', async (_, body, errors) => {
    const before = await counts();
    const { error, response } = await post(key(), body());
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: errors });
    expect(await counts()).toEqual(before);
  });

  it('a patient given whole is not made a record when the create is refused for its appointment (400) or its slot (409)', async () => {
    await createConsult(t, key(), consultBody(others.production, { appointment: { appt_date: mondayAt('16:00', 3), duration: 1800, provider_id: PROVIDER.ben } }));
    const before = await counts();
    const noSlot = await post(key(), consultBody(inlinePatient('Refused'), { appointment: { appt_date: mondayAt('16:10', 3), duration: 1800 } }));
    expect(noSlot.response.status).toBe(400);
    const taken = await post(key(), consultBody(inlinePatient('Loser'), { appointment: { appt_date: mondayAt('16:00', 3), duration: 1800, provider_id: PROVIDER.ben } }));
    expect(taken.error).toEqual(slotTaken);
    expect(await counts()).toEqual(before);
  });
});

describe('booking a slot', () => {
  it('names its provider, or takes any free provider licensed in the state; a slot no provider is free at answers 409', async () => {
    // A patient in HI at 16:00Z: only Ben is licensed there.
    const hawaii = await createConsult(t, key(), consultBody(await createPatient(t, key()), { shipping_address: shippingAddress('HI'), appointment: { appt_date: mondayAt('16:00'), duration: 1800 } }));
    expect(await providerOf(hawaii.id)).toBe('Ben');
    // At 16:30Z Ava and Ben are both free for a CA patient: one each, then none.
    const book = async () => post(key(), consultBody(await createPatient(t, key()), { appointment: { appt_date: mondayAt('16:30'), duration: 1800 } }));
    const [first, second, third] = [await book(), await book(), await book()];
    expect([first.response.status, second.response.status, third.response.status]).toEqual([200, 200, 409]);
    expect(third.error).toEqual(slotTaken);
    expect([await providerOf(first.data!.consult), await providerOf(second.data!.consult)].sort()).toEqual(['Ava', 'Ben']);
    expect((await slotsOf(t, key(), { start: mondayAt('00:00'), end: mondayAt('23:59'), questionnaire: QUESTIONNAIRE.intake, state: 'CA' })).filter((s) => s.start === mondayAt('16:30'))).toEqual([]);
  });

  it.each<[string, { appt_date: string; duration: number; provider_id?: string }, number]>([
    ["Ava's slot, named by provider_id", { appt_date: mondayAt('17:00'), duration: 1800, provider_id: PROVIDER.ava }, 1],
    ['a slot both Ava and Ben have, no provider named', { appt_date: mondayAt('16:00', 2), duration: 1800 }, 2],
  ])('booked by five requests at once, by two customers (%s): the free providers are booked once each, every other request answers 409', async (_, appointment, winners) => {
    const customers = [acme, globex, acme, globex, acme].map((c) => c.production_api_key);
    const patients = await Promise.all(customers.map((apiKey) => createPatient(t, apiKey)));
    const before = await counts();
    const answers = await Promise.all(customers.map((apiKey, i) => post(apiKey, consultBody(patients[i]!, { appointment }))));
    expect(answers.map((a) => a.response.status).sort()).toEqual([...Array(winners).fill(200), ...Array(5 - winners).fill(409)]);
    for (const lost of answers.filter((a) => a.response.status === 409)) expect(lost.error).toEqual(slotTaken);

    const booked = await t.database.handle.db.selectFrom('consult_appointments').selectAll().where('start', '=', appointment.appt_date).where('canceled_at', 'is', null).execute();
    expect(booked).toHaveLength(winners);
    expect(new Set(booked.map((b) => b.provider_id)).size).toBe(winners);
    expect(await counts()).toEqual({ ...before, consults: before.consults + winners, appointments: before.appointments + winners, events: before.events + winners });
  });
});

describe('safe retries', () => {
  it('an Idempotency-Key replays the 200 of a booked consult (not a 409 for its own slot), made once; the key with another body answers 422', async () => {
    const patient = await createPatient(t, key());
    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const body = consultBody(patient, { appointment: { appt_date: mondayAt('17:30'), duration: 1800, provider_id: PROVIDER.ava }, metadata: 'retry-1' });
    const before = await counts();
    const first = await post(key(), body, headers);
    const retry = await post(key(), body, headers);
    expect([first.response.status, retry.response.status]).toEqual([200, 200]);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first.data);
    expect(await counts()).toEqual({ ...before, consults: before.consults + 1, appointments: before.appointments + 1, events: before.events + 1 });

    const other = await post(key(), { ...body, metadata: 'retry-2' }, headers);
    expect(other.response.status).toBe(422);
    // Without the key, the same body is a second booking of the slot.
    expect((await post(key(), body)).error).toEqual(slotTaken);
  });
});
