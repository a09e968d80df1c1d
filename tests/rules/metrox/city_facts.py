# ruff: noqa: RUF001 (the en dashes are how Paris writes its double station names)
"""Facts about the seed's four metro networks, kept by hand (docs/maps.md says where they come
from): each line's official colour and its stations in their real order, from one terminus to the
other (the order a sheet's line runs in). A city sheet takes a subsequence of each line; which
stations are interchanges follows from these lists (a station is shared by every line listing it).
"""

from __future__ import annotations

from typing import Any

# city -> {"beginner", "lines": {line id: (official colour, "Stop|Stop|…" in real order)}, "rings"}
CITY_FACTS: dict[str, dict[str, Any]] = {
    "amsterdam": {
        "beginner": True,
        "rings": set(),
        "lines": {
            "50": (
                "#00a651",
                "Isolatorweg|Sloterdijk|De Vlugtlaan|Jan van Galenstraat|Postjesweg|Lelylaan|"
                "Heemstedestraat|Henk Sneevlietweg|Amstelveenseweg|Zuid|RAI|Overamstel|"
                "Van der Madeweg|Duivendrecht|Strandvliet|Bijlmer ArenA|Bullewijk|Holendrecht|"
                "Reigersbos|Gein",
            ),
            "51": (
                "#f39200",
                "Isolatorweg|Sloterdijk|De Vlugtlaan|Jan van Galenstraat|Postjesweg|Lelylaan|"
                "Heemstedestraat|Henk Sneevlietweg|Amstelveenseweg|Zuid|RAI|Overamstel|Spaklerweg|"
                "Amstel|Wibautstraat|Weesperplein|Waterlooplein|Nieuwmarkt|Centraal Station",
            ),
            "52": (
                "#00a0e3",
                "Noord|Noorderpark|Centraal Station|Rokin|Vijzelgracht|De Pijp|Europaplein|Zuid",
            ),
            "53": (
                "#e30613",
                "Centraal Station|Nieuwmarkt|Waterlooplein|Weesperplein|Wibautstraat|Amstel|"
                "Spaklerweg|Van der Madeweg|Venserpolder|Diemen Zuid|Verrijn Stuartweg|Ganzenhoef|"
                "Kraaiennest|Gaasperplas",
            ),
            "54": (
                "#ffd800",
                "Centraal Station|Nieuwmarkt|Waterlooplein|Weesperplein|Wibautstraat|Amstel|"
                "Spaklerweg|Van der Madeweg|Duivendrecht|Strandvliet|Bijlmer ArenA|Bullewijk|"
                "Holendrecht|Reigersbos|Gein",
            ),
            "25": (
                "#8a5a9e",
                "Zuid|A.J. Ernststraat|Van Boshuizenstraat|Uilenstede|Kronenburg|Zonnestein|"
                "Onderuit|Oranjebaan|Amstelveen Stadshart|Ouderkerkerlaan|Sportlaan|Marne|Gondel|"
                "Meent|Brink|Poortwachter|Spinnerij|Sacharovlaan|Westwijk|Uithoorn Centrum",
            ),
            "2": (
                "#6d6e71",
                "Centraal Station|Dam|Spui|Koningsplein|Leidseplein|Rijksmuseum|Van Baerlestraat|"
                "Hoofddorpplein|Nieuw Sloten",
            ),
        },
    },
    "berlin": {
        "beginner": True,
        "rings": set(),
        "lines": {
            "U1": (
                "#7dad4c",
                "Uhlandstraße|Kurfürstendamm|Wittenbergplatz|Nollendorfplatz|Kurfürstenstraße|"
                "Gleisdreieck|Möckernbrücke|Hallesches Tor|Prinzenstraße|Kottbusser Tor|"
                "Görlitzer Bahnhof|Schlesisches Tor|Warschauer Straße",
            ),
            "U2": (
                "#da421e",
                "Pankow|Vinetastraße|Schönhauser Allee|Eberswalder Straße|Senefelderplatz|"
                "Rosa-Luxemburg-Platz|Alexanderplatz|Klosterstraße|Märkisches Museum|Spittelmarkt|"
                "Hausvogteiplatz|Stadtmitte|Mohrenstraße|Potsdamer Platz|"
                "Mendelssohn-Bartholdy-Park|Gleisdreieck|Bülowstraße|Nollendorfplatz|"
                "Wittenbergplatz|Zoologischer Garten|Ernst-Reuter-Platz|Deutsche Oper|"
                "Bismarckstraße|Sophie-Charlotte-Platz|Kaiserdamm|Theodor-Heuss-Platz|Neu-Westend|"
                "Olympia-Stadion|Ruhleben",
            ),
            "U3": (
                "#16683d",
                "Krumme Lanke|Onkel Toms Hütte|Oskar-Helene-Heim|Freie Universität (Thielplatz)|"
                "Dahlem-Dorf|Podbielskiallee|Breitenbachplatz|Rüdesheimer Platz|"
                "Heidelberger Platz|Fehrbelliner Platz|Hohenzollernplatz|Spichernstraße|"
                "Augsburger Straße|Wittenbergplatz|Nollendorfplatz|Kurfürstenstraße|Gleisdreieck|"
                "Möckernbrücke|Hallesches Tor|Prinzenstraße|Kottbusser Tor|Görlitzer Bahnhof|"
                "Schlesisches Tor|Warschauer Straße",
            ),
            "U4": (
                "#f0d722",
                "Nollendorfplatz|Viktoria-Luise-Platz|Bayerischer Platz|Rathaus Schöneberg|"
                "Innsbrucker Platz",
            ),
            "U5": (
                "#7e5330",
                "Hauptbahnhof|Bundestag|Brandenburger Tor|Unter den Linden|Museumsinsel|"
                "Rotes Rathaus|Alexanderplatz|Schillingstraße|Strausberger Platz|Weberwiese|"
                "Frankfurter Tor|Samariterstraße|Frankfurter Allee|Magdalenenstraße|Lichtenberg|"
                "Friedrichsfelde|Tierpark|Biesdorf-Süd|Elsterwerdaer Platz|Wuhletal|"
                "Kaulsdorf-Nord|Kienberg (Gärten der Welt)|Cottbusser Platz|Hellersdorf|"
                "Louis-Lewin-Straße|Hönow",
            ),
            "U6": (
                "#8c6dab",
                "Alt-Tegel|Borsigwerke|Holzhauser Straße|Otisstraße|Scharnweberstraße|"
                "Kurt-Schumacher-Platz|Afrikanische Straße|Rehberge|Seestraße|Leopoldplatz|"
                "Wedding|Reinickendorfer Straße|Schwartzkopffstraße|Naturkundemuseum|"
                "Oranienburger Tor|Friedrichstraße|Unter den Linden|Stadtmitte|Kochstraße|"
                "Hallesches Tor|Mehringdamm|Platz der Luftbrücke|Paradestraße|Tempelhof|"
                "Alt-Tempelhof|Kaiserin-Augusta-Straße|Ullsteinstraße|Westphalweg|Alt-Mariendorf",
            ),
            "U7": (
                "#528dba",
                "Rathaus Spandau|Altstadt Spandau|Zitadelle|Haselhorst|Paulsternstraße|Rohrdamm|"
                "Siemensdamm|Halemweg|Jakob-Kaiser-Platz|Jungfernheide|Mierendorffplatz|"
                "Richard-Wagner-Platz|Bismarckstraße|Wilmersdorfer Straße|Adenauerplatz|"
                "Konstanzer Straße|Fehrbelliner Platz|Blissestraße|Berliner Straße|"
                "Bayerischer Platz|Eisenacher Straße|Kleistpark|Yorckstraße|Möckernbrücke|"
                "Mehringdamm|Gneisenaustraße|Südstern|Hermannplatz|Rathaus Neukölln|"
                "Karl-Marx-Straße|Neukölln|Grenzallee|Blaschkoallee|Parchimer Allee|Britz-Süd|"
                "Johannisthaler Chaussee|Lipschitzallee|Wutzkyallee|Zwickauer Damm|Rudow",
            ),
            "U8": (
                "#224f86",
                "Wittenau|Rathaus Reinickendorf|Karl-Bonhoeffer-Nervenklinik|Lindauer Allee|"
                "Paracelsus-Bad|Residenzstraße|Franz-Neumann-Platz|Osloer Straße|Pankstraße|"
                "Gesundbrunnen|Voltastraße|Bernauer Straße|Rosenthaler Platz|Weinmeisterstraße|"
                "Alexanderplatz|Jannowitzbrücke|Heinrich-Heine-Straße|Moritzplatz|Kottbusser Tor|"
                "Schönleinstraße|Hermannplatz|Boddinstraße|Leinestraße|Hermannstraße",
            ),
            "U9": (
                "#f3791d",
                "Osloer Straße|Nauener Platz|Leopoldplatz|Amrumer Straße|Westhafen|Birkenstraße|"
                "Turmstraße|Hansaplatz|Zoologischer Garten|Kurfürstendamm|Spichernstraße|"
                "Güntzelstraße|Berliner Straße|Bundesplatz|Friedrich-Wilhelm-Platz|"
                "Walther-Schreiber-Platz|Schloßstraße|Rathaus Steglitz",
            ),
        },
    },
    "paris": {
        "beginner": False,
        "rings": set(),
        "lines": {
            "1": (
                "#ffcd00",
                "La Défense|Esplanade de la Défense|Pont de Neuilly|Les Sablons|Porte Maillot|"
                "Argentine|Charles de Gaulle–Étoile|George V|Franklin D. Roosevelt|"
                "Champs-Élysées–Clemenceau|Concorde|Tuileries|Palais Royal–Musée du Louvre|"
                "Louvre–Rivoli|Châtelet|Hôtel de Ville|Saint-Paul|Bastille|Gare de Lyon|"
                "Reuilly–Diderot|Nation|Porte de Vincennes|Saint-Mandé|Bérault|"
                "Château de Vincennes",
            ),
            "2": (
                "#003ca6",
                "Porte Dauphine|Victor Hugo|Charles de Gaulle–Étoile|Ternes|Courcelles|Monceau|"
                "Villiers|Rome|Place de Clichy|Blanche|Pigalle|Anvers|Barbès–Rochechouart|"
                "La Chapelle|Stalingrad|Jaurès|Colonel Fabien|Belleville|Couronnes|Ménilmontant|"
                "Père Lachaise|Philippe Auguste|Alexandre Dumas|Avron|Nation",
            ),
            "3": (
                "#837902",
                "Pont de Levallois–Bécon|Anatole France|Louise Michel|Porte de Champerret|Pereire|"
                "Wagram|Malesherbes|Villiers|Europe|Saint-Lazare|Havre–Caumartin|Opéra|"
                "Quatre-Septembre|Bourse|Sentier|Réaumur–Sébastopol|Arts et Métiers|Temple|"
                "République|Parmentier|Rue Saint-Maur|Père Lachaise|Gambetta|Porte de Bagnolet|"
                "Gallieni",
            ),
            "4": (
                "#cf009e",
                "Porte de Clignancourt|Simplon|Marcadet–Poissonniers|Château Rouge|"
                "Barbès–Rochechouart|Gare du Nord|Gare de l'Est|Château d'Eau|"
                "Strasbourg–Saint-Denis|Réaumur–Sébastopol|Étienne Marcel|Les Halles|Châtelet|"
                "Cité|Saint-Michel|Odéon|Saint-Germain-des-Prés|Saint-Sulpice|Saint-Placide|"
                "Montparnasse–Bienvenüe|Vavin|Raspail|Denfert-Rochereau|Mouton-Duvernet|Alésia|"
                "Porte d'Orléans|Mairie de Montrouge|Barbara|Bagneux–Lucie Aubrac",
            ),
            "5": (
                "#ff7e2e",
                "Bobigny–Pablo Picasso|Bobigny–Pantin–Raymond Queneau|Église de Pantin|Hoche|"
                "Porte de Pantin|Ourcq|Laumière|Jaurès|Stalingrad|Gare du Nord|Gare de l'Est|"
                "Jacques Bonsergent|République|Oberkampf|Richard-Lenoir|Bréguet–Sabin|Bastille|"
                "Quai de la Rapée|Gare d'Austerlitz|Saint-Marcel|Campo-Formio|Place d'Italie",
            ),
            "6": (
                "#6eca97",
                "Charles de Gaulle–Étoile|Kléber|Boissière|Trocadéro|Passy|Bir-Hakeim|Dupleix|"
                "La Motte-Picquet–Grenelle|Cambronne|Sèvres–Lecourbe|Pasteur|"
                "Montparnasse–Bienvenüe|Edgar Quinet|Raspail|Denfert-Rochereau|Saint-Jacques|"
                "Glacière|Corvisart|Place d'Italie|Nationale|Chevaleret|Quai de la Gare|Bercy|"
                "Dugommier|Daumesnil|Bel-Air|Picpus|Nation",
            ),
            "7": (
                "#fa9aba",
                "La Courneuve–8 Mai 1945|Fort d'Aubervilliers|Aubervilliers–Pantin–Quatre Chemins|"
                "Porte de la Villette|Corentin Cariou|Crimée|Riquet|Stalingrad|Louis Blanc|"
                "Château-Landon|Gare de l'Est|Poissonnière|Cadet|Le Peletier|"
                "Chaussée d'Antin–La Fayette|Opéra|Pyramides|Palais Royal–Musée du Louvre|"
                "Pont Neuf|Châtelet|Pont Marie|Sully–Morland|Jussieu|Place Monge|"
                "Censier–Daubenton|Les Gobelins|Place d'Italie|Tolbiac|Maison Blanche|"
                "Le Kremlin-Bicêtre|Villejuif–Léo Lagrange|Villejuif–Paul Vaillant-Couturier|"
                "Villejuif–Louis Aragon",
            ),
            "8": (
                "#e19bdf",
                "Balard|Lourmel|Boucicaut|Félix Faure|Commerce|La Motte-Picquet–Grenelle|"
                "École Militaire|La Tour-Maubourg|Invalides|Concorde|Madeleine|Opéra|"
                "Richelieu–Drouot|Grands Boulevards|Bonne Nouvelle|Strasbourg–Saint-Denis|"
                "République|Filles du Calvaire|Saint-Sébastien–Froissart|Chemin Vert|Bastille|"
                "Ledru-Rollin|Faidherbe–Chaligny|Reuilly–Diderot|Montgallet|Daumesnil|"
                "Michel Bizot|Porte Dorée|Porte de Charenton|Liberté|Charenton–Écoles|"
                "École vétérinaire de Maisons-Alfort|Maisons-Alfort–Stade|"
                "Maisons-Alfort–Les Juilliottes|Créteil–L'Échat|Créteil–Université|"
                "Créteil–Préfecture|Pointe du Lac",
            ),
            "9": (
                "#b6bd00",
                "Pont de Sèvres|Billancourt|Marcel Sembat|Porte de Saint-Cloud|Exelmans|"
                "Michel-Ange–Molitor|Michel-Ange–Auteuil|Jasmin|Ranelagh|La Muette|"
                "Rue de la Pompe|Trocadéro|Iéna|Alma–Marceau|Franklin D. Roosevelt|"
                "Saint-Philippe-du-Roule|Miromesnil|Saint-Augustin|Havre–Caumartin|"
                "Chaussée d'Antin–La Fayette|Richelieu–Drouot|Grands Boulevards|Bonne Nouvelle|"
                "Strasbourg–Saint-Denis|République|Oberkampf|Saint-Ambroise|Voltaire|Charonne|"
                "Rue des Boulets|Nation|Buzenval|Maraîchers|Porte de Montreuil|Robespierre|"
                "Croix de Chavaux|Mairie de Montreuil",
            ),
            "12": (
                "#007852",
                "Mairie d'Aubervilliers|Aimé Césaire|Front Populaire|Porte de la Chapelle|"
                "Marx Dormoy|Marcadet–Poissonniers|Jules Joffrin|Lamarck–Caulaincourt|Abbesses|"
                "Pigalle|Saint-Georges|Notre-Dame-de-Lorette|Trinité–d'Estienne d'Orves|"
                "Saint-Lazare|Madeleine|Concorde|Assemblée nationale|Solférino|Rue du Bac|"
                "Sèvres–Babylone|Rennes|Notre-Dame-des-Champs|Montparnasse–Bienvenüe|Falguière|"
                "Pasteur|Volontaires|Vaugirard|Convention|Porte de Versailles|Corentin Celton|"
                "Mairie d'Issy",
            ),
            "13": (
                "#6ec4e8",
                "Saint-Denis–Université|Basilique de Saint-Denis|Saint-Denis–Porte de Paris|"
                "Carrefour Pleyel|Mairie de Saint-Ouen|Garibaldi|Porte de Saint-Ouen|Guy Môquet|"
                "La Fourche|Place de Clichy|Liège|Saint-Lazare|Miromesnil|"
                "Champs-Élysées–Clemenceau|Invalides|Varenne|Saint-François-Xavier|Duroc|"
                "Montparnasse–Bienvenüe|Gaîté|Pernety|Plaisance|Porte de Vanves|"
                "Malakoff–Plateau de Vanves|Malakoff–Rue Étienne Dolet|Châtillon–Montrouge",
            ),
            "14": (
                "#62259d",
                "Saint-Denis Pleyel|Mairie de Saint-Ouen|Saint-Ouen|Porte de Clichy|Pont Cardinet|"
                "Saint-Lazare|Madeleine|Pyramides|Châtelet|Gare de Lyon|Bercy|Cour Saint-Émilion|"
                "Bibliothèque François Mitterrand|Olympiades|Maison Blanche|"
                "Kremlin-Bicêtre Hôpital|Villejuif–Gustave Roussy|L'Haÿ-les-Roses|Chevilly-Larue|"
                "Thiais–Orly|Aéroport d'Orly",
            ),
        },
    },
    "madrid": {
        "beginner": False,
        "rings": {"6"},
        "lines": {
            "1": (
                "#2dbef0",
                "Pinar de Chamartín|Bambú|Chamartín|Plaza de Castilla|Valdeacederas|Tetuán|"
                "Estrecho|Alvarado|Cuatro Caminos|Ríos Rosas|Iglesia|Bilbao|Tribunal|Gran Vía|Sol|"
                "Tirso de Molina|Antón Martín|Estación del Arte|Atocha|Menéndez Pelayo|Pacífico|"
                "Puente de Vallecas|Nueva Numancia|Portazgo|Buenos Aires|Alto del Arenal|"
                "Miguel Hernández|Sierra de Guadalupe|Villa de Vallecas|Congosto|La Gavia|"
                "Las Suertes|Valdecarros",
            ),
            "2": (
                "#ed1c24",
                "Las Rosas|Avenida de Guadalajara|Alsacia|La Almudena|La Elipa|Ventas|"
                "Manuel Becerra|Goya|Príncipe de Vergara|Retiro|Banco de España|Sevilla|Sol|Ópera|"
                "Santo Domingo|Noviciado|San Bernardo|Quevedo|Canal|Cuatro Caminos",
            ),
            "3": (
                "#ffd000",
                "Moncloa|Argüelles|Ventura Rodríguez|Plaza de España|Callao|Sol|Lavapiés|"
                "Embajadores|Palos de la Frontera|Delicias|Legazpi|Almendrales|"
                "Hospital 12 de Octubre|San Fermín-Orcasur|Ciudad de los Ángeles|"
                "Villaverde Bajo-Cruce|San Cristóbal|Villaverde Alto|El Casar",
            ),
            "4": (
                "#b65518",
                "Argüelles|San Bernardo|Bilbao|Alonso Martínez|Colón|Serrano|Velázquez|Goya|Lista|"
                "Diego de León|Avenida de América|Prosperidad|Alfonso XIII|Avenida de la Paz|"
                "Arturo Soria|Esperanza|Canillas|Mar de Cristal|San Lorenzo|Parque de Santa María|"
                "Hortaleza|Manoteras|Pinar de Chamartín",
            ),
            "5": (
                "#8fd400",
                "Alameda de Osuna|El Capricho|Canillejas|Torre Arias|Suanzes|Ciudad Lineal|"
                "Pueblo Nuevo|Quintana|El Carmen|Ventas|Diego de León|Núñez de Balboa|Rubén Darío|"
                "Alonso Martínez|Chueca|Gran Vía|Callao|Ópera|La Latina|Puerta de Toledo|Acacias|"
                "Pirámides|Marqués de Vadillo|Urgel|Oporto|Vista Alegre|Carabanchel|"
                "Eugenia de Montijo|Aluche|Empalme|Campamento|Casa de Campo",
            ),
            "6": (
                "#98989b",
                "Argüelles|Príncipe Pío|Puerta del Ángel|Alto de Extremadura|Lucero|Laguna|"
                "Carpetana|Oporto|Opañel|Plaza Elíptica|Usera|Legazpi|Arganzuela-Planetario|"
                "Méndez Álvaro|Pacífico|Conde de Casal|Sainz de Baranda|O'Donnell|Manuel Becerra|"
                "Diego de León|Avenida de América|República Argentina|Nuevos Ministerios|"
                "Cuatro Caminos|Guzmán el Bueno|Vicente Aleixandre|Ciudad Universitaria|Moncloa",
            ),
            "7": (
                "#ee7518",
                "Hospital del Henares|Henares|Jarama|San Fernando|La Rambla|Coslada Central|"
                "Barrio del Puerto|Estadio Metropolitano|Las Musas|San Blas|Simancas|"
                "García Noblejas|Ascao|Pueblo Nuevo|Barrio de la Concepción|"
                "Parque de las Avenidas|Cartagena|Avenida de América|Gregorio Marañón|Alonso Cano|"
                "Canal|Islas Filipinas|Guzmán el Bueno|Francos Rodríguez|Valdezarza|"
                "Antonio Machado|Peñagrande|Avenida de la Ilustración|Lacoma|Arroyofresno|Pitis",
            ),
            "8": (
                "#ec82b1",
                "Nuevos Ministerios|Colombia|Pinar del Rey|Mar de Cristal|Feria de Madrid|"
                "Aeropuerto T1-T2-T3|Barajas|Aeropuerto T4",
            ),
            "9": (
                "#a60084",
                "Paco de Lucía|Mirasierra|Herrera Oria|Barrio del Pilar|Ventilla|"
                "Plaza de Castilla|Duque de Pastrana|Pío XII|Colombia|Concha Espina|Cruz del Rayo|"
                "Avenida de América|Núñez de Balboa|Príncipe de Vergara|Ibiza|Sainz de Baranda|"
                "Estrella|Vinateros|Artilleros|Pavones|Valdebernardo|Vicálvaro|San Cipriano|"
                "Puerta de Arganda",
            ),
            "10": (
                "#005aa9",
                "Hospital Infanta Sofía|Reyes Católicos|Baunatal|Manuel de Falla|"
                "Marqués de la Valdavia|La Moraleja|La Granja|Ronda de la Comunicación|Las Tablas|"
                "Montecarmelo|Tres Olivos|Fuencarral|Begoña|Chamartín|Plaza de Castilla|Cuzco|"
                "Santiago Bernabéu|Nuevos Ministerios|Gregorio Marañón|Alonso Martínez|Tribunal|"
                "Plaza de España|Príncipe Pío|Lago|Batán|Casa de Campo|Colonia Jardín|"
                "Aviación Española|Cuatro Vientos|Joaquín Vilumbrales|Puerta del Sur",
            ),
        },
    },
}

# Interchanges the sheets must show as one shared box (a spot check beside the derived rule).
KEY_INTERCHANGES: dict[str, dict[str, set[str]]] = {
    "amsterdam": {
        "Centraal Station": {"51", "52", "53", "54", "2"},
        "Zuid": {"50", "51", "52", "25"},
    },
    "berlin": {"Nollendorfplatz": {"U1", "U2", "U3", "U4"}, "Alexanderplatz": {"U2", "U5", "U8"}},
    "paris": {
        "Châtelet": {"1", "4", "7", "14"},
        "Saint-Lazare": {"3", "12", "13", "14"},
        "Montparnasse–Bienvenüe": {"4", "6", "12", "13"},
        "République": {"3", "5", "8", "9"},
    },
    "madrid": {"Sol": {"1", "2", "3"}, "Avenida de América": {"4", "6", "7", "9"}},
}
