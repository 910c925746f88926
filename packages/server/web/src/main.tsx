/** Entry of the web UI: renders the app into #app. */
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';
import { initTheme } from './use-theme.js';

initTheme();

render(<App />, document.getElementById('app')!);
