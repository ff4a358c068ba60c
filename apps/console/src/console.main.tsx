import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.view';
import './app/console.css';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
