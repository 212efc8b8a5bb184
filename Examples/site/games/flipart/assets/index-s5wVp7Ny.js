// Flip Art: a lights-out board drawn on a canvas. Every tap flips a tile and its neighbours and
// plays a chime, so a cached copy shows at once whether scripts, styles and audio all arrived.
const size = 5;
const chime = new Audio(new URL('./click-jhw0e5S2.wav', import.meta.url));
const canvas = document.getElementById('board');
const context = canvas.getContext('2d');
const flipsLabel = document.getElementById('flips');
const message = document.getElementById('message');
const colours = ['#f7c873', '#c03048', '#5fb49c', '#7a86d8', '#f08a4b'];
let lit = [];
let flips = 0;

function newBoard() {
  lit = Array.from({ length: size * size }, () => false);
  // A few random taps from the solved-dark board, so every board can be solved.
  for (let i = 0; i < 6; i++) {
    flip(Math.floor(Math.random() * size), Math.floor(Math.random() * size));
  }
  flips = 0;
  message.textContent = '';
  draw();
}

function flip(column, row) {
  for (const [dx, dy] of [[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]]) {
    const x = column + dx;
    const y = row + dy;
    if (x >= 0 && x < size && y >= 0 && y < size) {
      lit[y * size + x] = !lit[y * size + x];
    }
  }
}

function draw() {
  const scale = window.devicePixelRatio || 1;
  const side = canvas.clientWidth || 360;
  canvas.width = Math.round(side * scale);
  canvas.height = Math.round(side * scale);
  context.setTransform(scale, 0, 0, scale, 0, 0);
  context.clearRect(0, 0, side, side);
  const cell = side / size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const on = lit[y * size + x];
      context.fillStyle = on ? colours[(x + y) % colours.length] : '#3a3648';
      context.beginPath();
      context.roundRect(x * cell + 4, y * cell + 4, cell - 8, cell - 8, 10);
      context.fill();
      if (on) {
        context.fillStyle = 'rgba(255, 255, 255, 0.35)';
        context.beginPath();
        context.arc(x * cell + cell / 2, y * cell + cell / 2, cell / 6, 0, Math.PI * 2);
        context.fill();
      }
    }
  }
  flipsLabel.textContent = `Flips: ${flips}`;
}

canvas.addEventListener('pointerdown', (event) => {
  const box = canvas.getBoundingClientRect();
  const column = Math.floor(((event.clientX - box.left) / box.width) * size);
  const row = Math.floor(((event.clientY - box.top) / box.height) * size);
  if (column < 0 || column >= size || row < 0 || row >= size) {
    return;
  }
  flip(column, row);
  flips += 1;
  chime.currentTime = 0;
  chime.play().catch(() => {
    message.textContent = 'The chime did not play (audio blocked or not cached).';
  });
  draw();
  if (lit.every(Boolean)) {
    message.textContent = `Art! Solved in ${flips} flips.`;
  }
});
document.getElementById('reset').addEventListener('click', newBoard);
window.addEventListener('resize', draw);
newBoard();
