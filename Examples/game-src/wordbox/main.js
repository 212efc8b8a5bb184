// Word Box: unscramble a five-letter word by tapping its letters.
const words = ['CACHE', 'PROXY', 'STORE', 'FETCH', 'TILES', 'LARDS', 'GAMES'];
const answer = document.getElementById('answer');
const letters = document.getElementById('letters');
const message = document.getElementById('message');
let word = '';
let picked = [];

function shuffled(text) {
  const characters = [...text];
  do {
    for (let i = characters.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [characters[i], characters[j]] = [characters[j], characters[i]];
    }
  } while (characters.join('') === text);
  return characters;
}

function tile(letter) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'tile';
  button.textContent = letter;
  return button;
}

function render() {
  answer.replaceChildren(...picked.map(({ letter }) => tile(letter)));
  if (picked.length === word.length) {
    const guess = picked.map(({ letter }) => letter).join('');
    message.textContent = guess === word ? `Yes: ${word}!` : 'Not quite; tap Clear and try again.';
  } else {
    message.textContent = '';
  }
}

function start() {
  word = words[Math.floor(Math.random() * words.length)];
  picked = [];
  letters.replaceChildren(...shuffled(word).map((letter, index) => {
    const button = tile(letter);
    button.addEventListener('click', () => {
      button.disabled = true;
      picked.push({ letter, index });
      render();
    });
    return button;
  }));
  render();
}

document.getElementById('clear').addEventListener('click', () => {
  picked = [];
  for (const button of letters.children) {
    button.disabled = false;
  }
  render();
});
document.getElementById('next').addEventListener('click', start);
start();
