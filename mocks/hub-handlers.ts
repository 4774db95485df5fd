/**
 * MSW handlers for the Hub API (`GET https://huggingface.co/api/models/{id}`), shared by the hub
 * adapter's unit tests, the component tests and the app's mock mode. The model id picks the
 * answer: the ids of {@link HUB_MOCK_IDS} give the failures (404, 429 with Retry-After, a
 * malformed body, a network error, wrong-typed fields), the ids of {@link hubFixtures} (the four
 * in-browser models among them) give their record, any other id 404.
 */
import { http, HttpResponse, type RequestHandler } from 'msw';
import { MODELS } from '../src/shared/models';
import { sampleModelRecord } from '../src/hub/sample-model-record';

export const HUB_API_MODELS = 'https://huggingface.co/api/models';

export const HUB_MOCK_IDS = {
  found: 'mock/text-classifier',
  notFound: 'mock/not-found',
  rateLimited: 'mock/rate-limited',
  malformed: 'mock/malformed',
  networkDown: 'mock/network-down',
  wrongTypes: 'mock/wrong-types',
  serverError: 'mock/server-error',
} as const;

/** Retry-After of the 429 answer, in seconds. */
export const HUB_MOCK_RETRY_AFTER = 30;

/** Records the mock Hub knows, by id. */
export const hubFixtures: Readonly<Record<string, Record<string, unknown>>> = {
  [HUB_MOCK_IDS.found]: {
    id: HUB_MOCK_IDS.found,
    modelId: HUB_MOCK_IDS.found,
    library_name: 'transformers',
    pipeline_tag: 'text-classification',
    tags: ['transformers', 'pytorch', 'text-classification', 'en'],
    config: { architectures: ['DistilBertForSequenceClassification'], model_type: 'distilbert' },
    transformersInfo: {
      auto_model: 'AutoModelForSequenceClassification',
      pipeline_tag: 'text-classification',
      processor: 'AutoTokenizer',
    },
    siblings: [{ rfilename: 'config.json' }, { rfilename: 'model.safetensors' }],
    downloads: 1234,
    likes: 5,
  },
  [HUB_MOCK_IDS.wrongTypes]: {
    id: HUB_MOCK_IDS.wrongTypes,
    library_name: 'peft',
    pipeline_tag: 'text-generation',
    tags: 'peft',
    config: { peft: { task_type: 42, base_model_name_or_path: ['not', 'a', 'string'] } },
  },
  ...Object.fromEntries(
    MODELS.map((m) => [m.id, { ...sampleModelRecord({ modelId: m.id, dtype: m.dtype }) }]),
  ),
};

/** One scenario for every model id (tests that want a given answer whatever the id). */
export type HubScenario = 'found' | '404' | '429' | 'malformed' | 'network' | '500';

function answer(scenario: HubScenario, id: string): Response {
  switch (scenario) {
    case '404':
      return HttpResponse.json({ error: 'Repository not found' }, { status: 404 });
    case '429':
      return HttpResponse.json(
        { error: 'Rate limit reached' },
        { status: 429, headers: { 'Retry-After': String(HUB_MOCK_RETRY_AFTER) } },
      );
    case 'malformed':
      return new HttpResponse(`{"id": "${id}", "tags": [`, {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    case 'network':
      return HttpResponse.error();
    case '500':
      return HttpResponse.json({ error: 'Internal Error' }, { status: 500 });
    case 'found': {
      const record = hubFixtures[id];
      return record ? HttpResponse.json(record) : answer('404', id);
    }
  }
}

function scenarioOf(id: string): HubScenario {
  switch (id) {
    case HUB_MOCK_IDS.notFound:
      return '404';
    case HUB_MOCK_IDS.rateLimited:
      return '429';
    case HUB_MOCK_IDS.malformed:
      return 'malformed';
    case HUB_MOCK_IDS.networkDown:
      return 'network';
    case HUB_MOCK_IDS.serverError:
      return '500';
    default:
      return 'found';
  }
}

/** The Hub API of the mock mode and of the tests: the model id picks the answer. */
export const hubHandlers: RequestHandler[] = [
  http.get(`${HUB_API_MODELS}/*`, ({ params }) => {
    const id = decodeURIComponent(String(params[0] ?? ''));
    return answer(scenarioOf(id), id);
  }),
];
