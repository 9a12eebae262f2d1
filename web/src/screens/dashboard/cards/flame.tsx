// The flame card: an animated flame, drawn by CSS alone.
export function Flame() {
  return (
    <div class="flame" role="img" aria-label="An animated flame">
      <span class="flame-outer" />
      <span class="flame-inner" />
    </div>
  );
}
