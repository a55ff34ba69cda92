/** setupFiles of the `e2e` jest project: the e2e specs on the Express adapter (the default), whatever the shell exported. */
process.env.HTTP_ADAPTER = 'express';
