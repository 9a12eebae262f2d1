// Settings → Voice: how long clips are kept, and a recording from the microphone transcribed.
import { useSignal } from '@preact/signals';
import { api, formBody, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Answer } from '../../types.ts';

type Settings = Answer<'/api/voice/settings'>;

export function Voice() {
  const saved = useData(() => ok(api.GET('/api/voice/settings')));
  const clips = useData(() => ok(api.GET('/api/voice/clips', { params: { query: { limit: 10 } } })));
  // The form's own copy of the settings, from the hub's until the owner changes it.
  const edited = useSignal<Settings | null>(null);
  const settings = edited.value ?? saved.data ?? null;
  const change = (next: Partial<Settings>) => (edited.value = { ...settings!, ...next });
  const recorder = useSignal<MediaRecorder | null>(null);
  const transcript = useSignal('');
  async function save(event: Event) {
    event.preventDefault();
    if (!settings) return;
    await ok(api.PUT('/api/voice/settings', { body: settings })).then(
      () => toast('Voice settings saved', 'success'),
      failed,
    );
  }
  async function record() {
    if (recorder.value) {
      recorder.value.stop();
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const media = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      media.ondataavailable = (event) => chunks.push(event.data);
      media.onstop = async () => {
        for (const track of stream.getTracks()) track.stop();
        recorder.value = null;
        const body = new FormData();
        body.append('file', new Blob(chunks, { type: media.mimeType }), 'recording.webm');
        const result = await ok(api.POST('/api/voice/transcribe', formBody(body))).catch(failed);
        if (result) transcript.value = result.text;
        await clips.reload();
      };
      media.start();
      recorder.value = media;
    } catch (error) {
      failed(error);
    }
  }
  return (
    <section class="panel" aria-label="Voice">
      <div class="panel-head">
        <h2>Voice</h2>
        <button type="button" class={recorder.value ? 'danger' : 'primary'} onClick={record}>
          <Icon name="mic" size={15} /> {recorder.value ? 'Stop and transcribe' : 'Record'}
        </button>
      </div>
      {transcript.value && <blockquote class="transcript">{transcript.value}</blockquote>}
      {settings && (
        <form class="row" onSubmit={save}>
          <label class="check">
            <input
              type="checkbox"
              checked={settings.retain_clips}
              onChange={(e) => change({ retain_clips: e.currentTarget.checked })}
            />
            Keep clips
          </label>
          <label>
            Delete clips after (days)
            <input
              type="number"
              min="1"
              max="3650"
              value={settings.retention_days}
              onInput={(e) => change({ retention_days: Number(e.currentTarget.value) })}
            />
          </label>
          <button type="submit">Save</button>
        </form>
      )}
      <ul class="list section-gap">
        {(clips.data?.items ?? []).map((clip) => (
          <li key={clip.id} class="clip">
            <span class="muted small">{ago(clip.created_at)}</span> {clip.transcript}
          </li>
        ))}
      </ul>
    </section>
  );
}
