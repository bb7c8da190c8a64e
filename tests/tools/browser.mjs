// Drives the viewer's browser build in Debian's Chromium (headless,
// WebGL2 through SwiftShader) as a user would, for tests/viewer.rs:
// serves a folder on loopback, opens pages, drops and picks files, and
// writes what it saw (screenshots and results.json) into an output folder.
//
// node tests/tools/browser.mjs SERVED_DIR OUT_DIR   (from the crate root)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [served, out] = process.argv.slice(2);
const require = createRequire(path.resolve('target/tools/package.json'));
const puppeteer = require('puppeteer-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const file = path.join(served, decodeURIComponent(url.pathname));
  if (!file.startsWith(path.resolve(served)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise(ok => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
    '--enable-webgl', '--window-size=1280,720'],
});
const results = {};
const LIMIT = Number(process.env.IO3D_WAIT_MS || 240000);

async function open(query, width = 1280, height = 720) {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  const errors = [];
  // Bevy logs through console.log, its level in the text.
  page.on('console', m => { if (m.type() === 'error' || /^%cERROR/.test(m.text())) errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  const started = Date.now();
  await page.goto(base + 'index.html' + query);
  await page.waitForFunction(() => document.body.dataset.io3d && document.body.dataset.io3d !== 'loading',
    { timeout: LIMIT, polling: 200 });
  const facts = await dataset(page);
  return { page, errors, facts, ms: Date.now() - started };
}

const dataset = page => page.evaluate(() => ({ ...document.body.dataset,
  error: document.getElementById('io3d-error').textContent }));

async function until(page, test, what) {
  const limit = Date.now() + LIMIT;
  for (;;) {
    const facts = await dataset(page);
    if (test(facts)) return facts;
    if (Date.now() > limit) throw new Error(`waited for ${what}; the page says ${JSON.stringify(facts)}`);
    await new Promise(ok => setTimeout(ok, 200));
  }
}

// Drops files the server has, as a user drops them from a file manager.
async function drop(page, names) {
  await page.evaluate(async names => {
    const transfer = new DataTransfer();
    for (const name of names) {
      const bytes = await (await fetch(name)).arrayBuffer();
      transfer.items.add(new File([bytes], name.split('/').pop()));
    }
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, names);
}

async function scenario(name, run) {
  try {
    results[name] = await run();
  } catch (error) {
    results[name] = { failed: String(error && error.stack || error) };
  }
}

await scenario('bundled', async () => {
  const { page, errors, facts, ms } = await open('?at_ms=250&panels=none');
  await page.screenshot({ path: path.join(out, 'bundled.png') });
  await page.close();
  return { errors, facts, ms };
});

// The bundled walk playing with the panels, at 1280x720: the viewer's own
// measure, as the desktop's --frame-times takes it.
await scenario('frames', async () => {
  const { page, errors } = await open(`?frame_times=${process.env.IO3D_FRAME_SECONDS || 10}`);
  const facts = await until(page, f => f.io3dFrameMs, 'the frame time');
  await page.close();
  return { errors, mean_ms: Number(facts.io3dFrameMs) };
});

await scenario('drop', async () => {
  const { page, errors } = await open('');
  await drop(page, ['walk.ani', 'biped.skl']);
  const opened = await until(page, f => f.io3dClip === 'walk.ani', 'the dropped walk');
  await page.screenshot({ path: path.join(out, 'drop.png') });
  await drop(page, ['broken.ani']);
  const broken = await until(page, f => (f.io3dProblems || '').includes('broken.ani'), 'the damaged file\'s error');
  await drop(page, ['idle.ani']);
  const after = await until(page, f => f.io3dClip === 'idle.ani', 'a drop after the damaged one');
  await page.close();
  return { errors, opened, broken, after };
});

await scenario('folder', async () => {
  const { page, errors } = await open('');
  const input = await page.$('#io3d-folder');
  await input.uploadFile(path.join(served, 'game'));
  const facts = await until(page, f => f.io3dClip === 'biped_walk_4002.ani' && f.io3dMeshes === '2', 'the character');
  await new Promise(ok => setTimeout(ok, 3000));
  await page.screenshot({ path: path.join(out, 'folder.png') });
  await page.close();
  return { errors, facts };
});

await scenario('address', async () => {
  const { page, errors, facts } = await open('?file=walk.ani&file=biped.skl&at_ms=500&panels=none');
  await page.close();
  const config = await open('?file=game/resource/model/animodel/biped.txt');
  await config.page.close();
  const missing = await open('?file=nowhere.ani');
  await missing.page.close();
  return { errors, facts, config: { errors: config.errors, facts: config.facts }, missing: missing.facts };
});

// egui draws its menus in the canvas: a pick from a menu is clicks at
// these places at 1280x720, each after a pause for the menu to follow.
const FILE_MENU = [19, 11];
const SAVE_AS_4001 = [82, 171];
const SAVE_IMPORTED = [100, 99];

async function menu(page, places) {
  for (const [x, y] of places) {
    await page.mouse.move(x, y);
    await new Promise(ok => setTimeout(ok, 2500));
    await page.mouse.click(x, y);
    await new Promise(ok => setTimeout(ok, 2500));
  }
}

// Downloads land in the output folder; waits for one.
async function downloads(page) {
  const session = await page.createCDPSession();
  await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: path.resolve(out) });
}

async function downloaded(name) {
  const saved = path.join(out, name);
  const limit = Date.now() + LIMIT;
  while (!fs.existsSync(saved) && Date.now() < limit) await new Promise(ok => setTimeout(ok, 500));
  return fs.existsSync(saved) ? saved : null;
}

// An edit, then Save: File > Save as version 4001….
await scenario('save', async () => {
  const { page, errors } = await open('?file=whole.ani&file=biped.skl');
  await downloads(page);
  await menu(page, [FILE_MENU, SAVE_AS_4001]);
  const saved = await downloaded('whole.ani');
  const facts = await dataset(page);
  await page.close();
  return { errors, facts, saved };
});

// A glTF model dropped opens as the game's files; File > Save imported
// model downloads them as one .zip.
await scenario('zip', async () => {
  const { page, errors } = await open('');
  await downloads(page);
  await drop(page, ['biped.glb']);
  const facts = await until(page, f => f.io3dImported === 'biped', 'the glTF model');
  await menu(page, [FILE_MENU, SAVE_IMPORTED]);
  const saved = await downloaded('biped.zip');
  await page.screenshot({ path: path.join(out, 'zip.png') });
  await page.close();
  return { errors, facts, saved };
});

// A .gltf whose buffer is a file beside it, dropped with it.
await scenario('separate', async () => {
  const { page, errors } = await open('');
  await drop(page, ['biped.gltf', 'biped.bin']);
  const facts = await until(page, f => f.io3dImported === 'biped', 'the glTF model and its buffer file');
  await page.close();
  return { errors, facts };
});

fs.writeFileSync(path.join(out, 'results.json'), JSON.stringify(results, null, 2));
await browser.close();
server.close();
