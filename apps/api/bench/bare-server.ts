/** The reference point: a bare Fastify route answering a small JSON body, no auth, no database. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = { patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e', first_name: 'Jane', last_name: 'Doe', dob: '19800131' };
app.get('/bare', async () => body);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ready');
