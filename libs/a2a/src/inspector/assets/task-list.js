// The task list: ListTasks, a page at a time, filtered by context and state.
import { $, element, shortState } from './dom.js';

const PAGE_SIZE = 10;
const STATES = [
  'SUBMITTED',
  'WORKING',
  'INPUT_REQUIRED',
  'AUTH_REQUIRED',
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'REJECTED',
];

/**
 * Binds the list's form and buttons. `call(method, params)` runs an operation on the chosen binding; `open(id)` shows
 * a task of the list.
 */
export function bindTaskList(call, open) {
  // The page token of each page seen so far ('' for the first), and the page shown.
  let pages = [''];
  let pageIndex = 0;

  async function list(index) {
    const params = {
      contextId: $('filter-context').value.trim() || undefined,
      status: $('filter-state').value || undefined,
      pageSize: PAGE_SIZE,
      pageToken: pages[index] || undefined,
    };
    $('tasks-status').textContent = 'Loading…';
    try {
      const page = await call('ListTasks', params);
      pages.length = index + 1;
      if (page.nextPageToken) pages.push(page.nextPageToken);
      pageIndex = index;
      render(page);
    } catch (error) {
      $('tasks-status').textContent = `Could not list tasks: ${error.message}`;
    }
  }

  function render(page) {
    const from = pageIndex * PAGE_SIZE;
    const shown = page.tasks.length;
    $('tasks-status').textContent = `${shown ? `${from + 1}–${from + shown}` : 'none'} of ${page.totalSize} tasks`;
    $('task-rows').replaceChildren(...page.tasks.map(row));
    $('previous-page').disabled = pageIndex === 0;
    $('next-page').disabled = pages.length <= pageIndex + 1;
  }

  function row(task) {
    const button = element('button', task.id, { type: 'button', 'aria-label': `Open task ${task.id}` });
    button.addEventListener('click', () => open(task.id));
    const cell = element('td');
    cell.append(button);
    const tr = element('tr');
    tr.append(
      cell,
      element('td', task.contextId),
      element('td', shortState(task.status?.state)),
      element('td', task.status?.timestamp ?? ''),
    );
    return tr;
  }

  for (const value of STATES) $('filter-state').append(element('option', value, { value: `TASK_STATE_${value}` }));
  $('tasks-form').addEventListener('submit', (event) => {
    event.preventDefault();
    pages = [''];
    void list(0);
  });
  $('previous-page').addEventListener('click', () => list(pageIndex - 1));
  $('next-page').addEventListener('click', () => list(pageIndex + 1));
  void list(0);
}
