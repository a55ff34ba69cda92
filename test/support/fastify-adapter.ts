/** setupFiles of the `e2e-fastify` jest project: the same e2e specs, on the Fastify adapter (apps in-process and spawned ones inherit it). */
process.env.HTTP_ADAPTER = 'fastify';
