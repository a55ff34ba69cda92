import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { ApiError } from './api/client';
import { App } from './App';
import { AuthProvider } from './auth/AuthContext';
import { startLanguage } from './i18n/language';
import { loadedAddress } from './auth/sectorAddress';
import { installChunkReload, ToastProvider } from './ui';

// A code file gone after a redeploy: reload once for the new version.
installChunkReload();

// The catalogues, in the language known before anything loads (the user's pick, else the browser's).
startLanguage();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors will not go away by asking again; outages might.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
      staleTime: 10_000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={loadedAddress?.basename}>
        <AuthProvider>
          <ToastProvider>
            <App />
          </ToastProvider>
        </AuthProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
