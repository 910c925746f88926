/** Entry of the web UI: renders the app into #app. */
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
