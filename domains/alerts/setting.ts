// The `alerts` setting: the web app's address as the owner's phone reaches it, for the links alerts carry.
import { defineSetting } from '../../lib/settings.ts';
import { AlertSettings } from './schema.ts';

export const alertSettings = defineSetting({
  key: 'alerts',
  schema: AlertSettings,
  defaultValue: { web_url: null },
  description: "Alerts: the web app's address (https://hub.lan) their links point into; null sends no links",
});
