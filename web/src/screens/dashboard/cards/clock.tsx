// The clock card: the time and date, in the card's own zone and 12/24-hour choice when its config names them.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { type Config, text } from './parts.tsx';

export function Clock({ config }: { config: Config }) {
  const now = useSignal(new Date());
  useEffect(() => {
    const timer = setInterval(() => (now.value = new Date()), 1000);
    return () => clearInterval(timer);
  }, []);
  const zone = text(config.timezone);
  const hour12 = typeof config.hour12 === 'boolean' ? config.hour12 : undefined;
  return (
    <div class="clock">
      <strong>
        {now.value.toLocaleTimeString(undefined, {
          hour: '2-digit',
          minute: '2-digit',
          timeZone: zone,
          hour12,
        })}
      </strong>
      <span class="muted">
        {now.value.toLocaleDateString(undefined, {
          weekday: 'long',
          day: 'numeric',
          month: 'long',
          timeZone: zone,
        })}
        {zone ? ` · ${zone}` : ''}
      </span>
    </div>
  );
}
